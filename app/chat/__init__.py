"""Match chat (issue 33): two rooms per match, phrases for everyone, free text for
established accounts, limits, blocks, reports and moderation.

- ``models.py``      the tables (migration 0015)
- ``phrases.py``     the phrases, stored by key, shown in each reader's language
- ``text.py``        free text: the character rules, links' private parts removed
- ``service.py``     rooms, who may read and write, the limits, storing and reading lines
- ``safety.py``      blocks and reports
- ``moderation.py``  the moderator role, open reports, the decisions and their log
- ``data.py``        its part of your data: export, closing, claiming a guest's chat
- ``schemas.py``     the JSON shapes; ``api.py`` the JSON API
- ``pages.py``       the match page's panel; ``moderation_pages.py`` the moderation page
"""
