import os

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
