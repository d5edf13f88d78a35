"""Templates: documents made ready to sign, their roles and fields."""
