import pytest


@pytest.fixture(scope="session")
def tb_domain():
    """The domain the tasks in this folder run against."""
    from shop import DOMAIN

    return DOMAIN
