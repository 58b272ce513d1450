// Placeholder: the panel script is written separately.
