//! shashki-net: placeholder until its issue lands.
