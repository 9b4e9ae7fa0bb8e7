import pytest


@pytest.fixture(scope="session")
def tb_domain():
    """The consulting domain: models, tools, policy and clock."""
    from domains.consulting import DOMAIN

    return DOMAIN
