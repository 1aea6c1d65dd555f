import os

import pytest
from hypothesis import HealthCheck, settings

# TestClient asks for Host "testserver": a host name the app serves only when told
# (ALLOWED_HOSTS), as production serves only PUBLIC_URL's host or, unset, localhost.
os.environ.setdefault("ALLOWED_HOSTS", "testserver")

# Random playouts vary in length; a per-example deadline would only make them flaky.
settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Each PostgreSQL test database is dropped when the fixture or test that made it ends.
pytest_plugins = ["tests.pg_cleanup", "pytester"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` first, in their order, then the rest in theirs. xdist
    hands tests out in this order, so the other workers run the rest beside them;
    collected last, the Schemathesis CLI's 150 s ran alone at the end of each run while
    the other worker had nothing left to do."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
