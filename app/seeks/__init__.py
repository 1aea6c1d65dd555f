"""Seeks: "play anyone". A seek waits for a compatible one and the two become a match.

- ``models.py``   the ``seeks`` table
- ``pairing.py``  who may play whom (pure): the compatibility rule, both ways
- ``service.py``  create (pair or wait), list, cancel, presence, expiry, players online
- ``routes.py``   ``/api/seeks`` (JSON), the seek's event stream, the home page's panel
"""
