"""Accounts (issue 30): usernames, passwords, passkeys, sessions, claiming, your data.

A guest is a browser token (the player cookie); an account owns sessions, passkeys, an
optional password and recovery codes. Rows that belong to a person (seats, ladder runs)
hold a hash: the guest token's, or the account's ``holder``. See docs/ARCHITECTURE.md,
"Who is who".
"""
