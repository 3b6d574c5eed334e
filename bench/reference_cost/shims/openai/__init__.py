"""Stand-in for the OpenAI SDK calls the reference code makes (see ../README.md)."""
import json
import urllib.request
from types import SimpleNamespace


def _attributes(value):
    if isinstance(value, dict):
        return SimpleNamespace(**{key: _attributes(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_attributes(item) for item in value]
    return value


class _Endpoint:
    def __init__(self, client, path):
        self._client = client
        self._path = path

    def create(self, extra_body=None, **body):
        body.update(extra_body or {})
        request = urllib.request.Request(
            self._client.base_url.rstrip("/") + self._path,
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json",
                     "Authorization": "Bearer " + (self._client.api_key or "")},
            method="POST")
        with urllib.request.urlopen(request, timeout=300) as response:
            return _attributes(json.loads(response.read().decode("utf-8")))


class OpenAI:
    def __init__(self, api_key=None, base_url=None):
        self.api_key = api_key
        self.base_url = base_url
        self.chat = SimpleNamespace(completions=_Endpoint(self, "/chat/completions"))
        self.embeddings = _Endpoint(self, "/embeddings")
