//! shashki-selfplay: placeholder until its issue lands.
