"""Learning the games (issue 29): the lessons' pages and JSON API over ``games.lessons``."""
