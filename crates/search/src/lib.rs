//! shashki-search: placeholder until its issue lands.
