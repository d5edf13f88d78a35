"""Result documents: filled, sealed, audited and combined, once submitters complete."""
