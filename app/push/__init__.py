"""Web Push (RFC 8030/8291/8292): notifications that reach a player off the page.

- ``models.py``    subscriptions, the VAPID key, the queue of pushes
- ``allowlist.py`` which endpoints the server may ever send to (``PUSH_HOSTS``)
- ``keys.py``      the VAPID key: a setting, or made on first start and kept in the database
- ``service.py``   subscribe, unsubscribe, queue a push (after the change's commit)
- ``sender.py``    the worker: encrypt (aes128gcm), sign (VAPID), send, retry, forget dead ones
- ``notify.py``    what is sent when (a move, a seek paired, a rematch offer), in the reader's language
- ``routes.py``    ``/api/push/key``, ``/api/push/subscriptions``, ``/sw.js``
"""
