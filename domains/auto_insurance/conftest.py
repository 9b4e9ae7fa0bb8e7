import pytest


@pytest.fixture(scope="session")
def tb_domain():
    """The auto insurance domain: models, tools, policy and clock."""
    from domains.auto_insurance import DOMAIN

    return DOMAIN
