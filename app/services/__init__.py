"""Everything that changes the database goes through a service function."""
