//! shashki-train: placeholder until its issue lands.
