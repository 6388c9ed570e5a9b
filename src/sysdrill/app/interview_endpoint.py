"""Which model endpoint conducts mock interviews: the environment, else the server's setting.

The environment variables (:mod:`sysdrill.app.llm_client`) win, so a learner can
point one terminal at a local server without changing anything stored. The
stored setting is server-wide (``site_settings``): on a multi-user server only
an admin changes it, and every learner's interviews go to the endpoint it names.
With neither, no text leaves the machine: the built-in conductor runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sysdrill.app.llm_client import EndpointConfig, endpoint_from_environment
from sysdrill.storage.accounts_store import AccountStore
from sysdrill.storage.location import study_database_url

__all__ = ["ENDPOINT_SETTING", "EndpointChoice", "clear_endpoint", "find_endpoint", "set_endpoint"]

ENDPOINT_SETTING = "interview_llm_endpoint"
"""The site setting holding the stored endpoint (base URL, model, API key)."""


@dataclass(frozen=True, slots=True)
class EndpointChoice:
    """The endpoint in force, and where it was configured."""

    config: EndpointConfig | None
    """None: no endpoint; the built-in conductor runs and nothing is sent."""
    source: str
    """``environment``, ``settings`` or ``none``."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping, without the API key."""
        return {
            "endpoint": None if self.config is None else self.config.to_public_dict(),
            "source": self.source,
        }


def find_endpoint(
    db_url: str | None, *, environ: Mapping[str, str] | None = None
) -> EndpointChoice:
    """The endpoint interviews use now.

    Raises:
        UsageError: If the environment names an invalid endpoint.
        StorageError: If the stored setting cannot be read.
    """
    found = endpoint_from_environment(environ)
    if found is not None:
        return EndpointChoice(found, "environment")
    with AccountStore(study_database_url(db_url)) as store:
        stored = store.get_site_setting(ENDPOINT_SETTING)
    if not isinstance(stored, dict) or not stored.get("base_url"):
        return EndpointChoice(None, "none")
    config = EndpointConfig(
        str(stored["base_url"]), str(stored.get("model", "")), str(stored.get("api_key", ""))
    )
    return EndpointChoice(config, "settings")


def set_endpoint(db_url: str | None, config: EndpointConfig) -> None:
    """Store ``config`` as the server's endpoint (an admin's change on a shared server)."""
    value = {"base_url": config.base_url, "model": config.model, "api_key": config.api_key}
    with AccountStore(study_database_url(db_url)) as store:
        store.put_site_setting(ENDPOINT_SETTING, value)


def clear_endpoint(db_url: str | None) -> None:
    """Forget the stored endpoint: interviews use the built-in conductor again."""
    with AccountStore(study_database_url(db_url)) as store:
        store.put_site_setting(ENDPOINT_SETTING, {})
