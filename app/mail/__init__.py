"""Optional email (issue 32, item 6): only with ``SMTP_URL`` set.

An account may add one address, verified through a signed link that lives 24 hours, and
opt in to a daily digest of the correspondence games waiting for its move; every digest
carries an unsubscribe link. Nothing is sent to an address that is not verified and
opted in, except the verification mail itself.

- ``models.py``   the account's address and the queue of outgoing mail (migration 0016)
- ``addresses.py`` which addresses are taken (one line, printable ASCII, no CR/LF)
- ``links.py``    the signed links: verify (24 h) and unsubscribe (until the address changes)
- ``smtp.py``     ``SMTP_URL`` read: the operator's server, how to reach it
- ``writing.py``  what each mail says, in the account's language
- ``service.py``  add, remove, verify, opt in or out, queue (limits per account and address)
- ``digest.py``   the worker that queues at most one digest a day per account
- ``sender.py``   the worker that sends the queue (aiosmtplib), retrying with backoff
- ``api.py`` ``pages.py``  ``/api/account/email*``; ``/email/verify``, ``/email/unsubscribe``
  and the settings page's forms
- ``wiring.py``   puts it into ``create_app``
"""
