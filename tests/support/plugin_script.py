"""Scripted stand-ins for the editor plugins: the same calls, in the same order, with the
same headers and bodies as engine_plugins/godot (dock.gd) and engine_plugins/unity
(AnimateWindow.cs) make, so the daemon can be driven end to end without an editor.

Every path called is recorded, so a test can hold this script and the plugins' sources
to the same set of endpoints."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from companion import __version__
from tests.support.calls import Reply, request

FINAL = ("done", "failed", "cancelled")
ENDPOINT = re.compile(r"/api/v1/[A-Za-z0-9_/%{}.]*")


def template(path: str) -> str:
    """A path with its job id (or format placeholder) as {id}."""
    path = path.split("?", 1)[0]
    path = re.sub(r"/(jobs|generations)/(%s|\{[A-Za-z]+\}|[A-Za-z0-9_-]+)", r"/\1/{id}", path)
    return path.rstrip("/")


def plugin_endpoints(sources: list[Path]) -> set[str]:
    """Every daemon path a plugin's source names."""
    return {template(m) for source in sources for m in ENDPOINT.findall(source.read_text())}


@dataclass
class ScriptedPlugin:
    home: Path  # COMPANION_HOME, where the plugins look for daemon.json
    engine: str  # "godot" or "unity"
    project_root: Path
    called: set[str] = field(default_factory=set)
    limits: dict[str, Any] = field(default_factory=dict)  # as GET /api/v1/status gives them
    version: str = __version__  # the plugin's own, named in X-Companion-Plugin

    def _call(self, method: str, path: str, body: Any = None) -> Reply:
        daemon = json.loads((self.home / "daemon.json").read_text())
        headers = {
            "Authorization": f"Bearer {daemon['token']}",
            "Accept": "application/json",
            "X-Companion-Plugin": f"{self.engine} {self.version}",
        }
        data = None
        if method == "POST":
            headers["Content-Type"] = "application/json"
            data = json.dumps(body if body is not None else {}).encode()
        self.called.add(template(path))
        return request(
            method, f"http://127.0.0.1:{daemon['port']}{path}", body=data, headers=headers
        )

    # -- what each plugin does, step by step ---------------------------------------------

    def refresh(self) -> dict[str, Any]:
        reply = self._call("GET", "/api/v1/status")
        assert reply.status == 200, reply.body
        self.limits = dict(reply.json.get("limits") or {})
        return dict(reply.json)

    def events_open(self) -> bytes:
        """The Godot dock holds the daemon's event stream open (its end says the daemon
        went away): the first bytes the stream sends."""
        import http.client

        daemon = json.loads((self.home / "daemon.json").read_text())
        self.called.add("/api/v1/events")
        connection = http.client.HTTPConnection("127.0.0.1", daemon["port"], timeout=30)
        try:
            connection.request(
                "GET",
                "/api/v1/events",
                headers={
                    "Authorization": f"Bearer {daemon['token']}",
                    "Accept": "text/event-stream",
                    "X-Companion-Plugin": f"{self.engine} {self.version}",
                },
            )
            reply = connection.getresponse()
            kind = reply.getheader("Content-Type", "")
            assert reply.status == 200 and "text/event-stream" in kind, kind
            return reply.read1(64)
        finally:
            connection.close()

    def health(self) -> bool:
        """The Unity window's look at a running daemon every 2 s."""
        return self._call("GET", "/api/v1/health").status == 200

    def ensure_project(self) -> None:
        listed = self._call("GET", "/api/v1/projects")
        assert listed.status == 200, listed.body
        root = str(self.project_root.resolve())
        if any(str(Path(p["root"]).resolve()) == root for p in listed.json["data"]):
            return
        # Both plugins send only what they know, so nothing set elsewhere is reset.
        body: dict[str, Any] = {"root": str(self.project_root), "engine": self.engine}
        added = self._call("POST", "/api/v1/projects", body)
        assert added.status == 201, added.body

    def body(
        self, image: str, prompt: str, formats: list[str], size: int, fps: float, seconds: float = 2
    ) -> dict[str, Any]:
        """As the dock and the window build it: frames = fps x seconds, cut to the most
        frames the daemon reports (the plugin says so when it cuts)."""
        frames = max(1, round(fps * seconds))
        most = (self.limits.get("frame_count") or {}).get("max")
        if most is not None:
            frames = min(frames, int(most))
        elif self.engine != "unity":
            frames = min(frames, 240)  # the dock's own bound until it reads the daemon's
        return {
            "project_root": str(self.project_root),
            "image_path": image,
            "prompt": prompt,
            "video": {"duration_seconds": float(seconds)},
            "export": {
                "frame_count": frames,
                "output_width": size,
                "output_height": size,
                "output_formats": ["spritesheet", "spritesheet_json", *formats],
            },
        }

    def quote(self, body: dict[str, Any]) -> int:
        self.ensure_project()
        reply = self._call("POST", "/api/v1/quote", body)
        assert reply.status == 200, reply.body
        return int(reply.json["credits"])

    def animate(self, body: dict[str, Any]) -> str:
        reply = self._call("POST", "/api/v1/animate", body)
        assert reply.status == 202, reply.body
        return str(reply.json["id"])

    def character_quote(self, body: dict[str, Any]) -> dict[str, Any]:
        """A character's set quoted (the dock's Moves list): each move's quote, the total."""
        self.ensure_project()
        reply = self._call("POST", "/api/v1/character/quote", body)
        assert reply.status == 200, reply.body
        return dict(reply.json)

    def character(self, body: dict[str, Any]) -> list[str]:
        """Animate all: every move of the set started; their job ids, in the set's order."""
        reply = self._call("POST", "/api/v1/character", body)
        assert reply.status in (200, 202), reply.body
        return [str(m["job"]["id"]) for m in reply.json["moves"]]

    def poll(self, job_id: str, timeout: float = 120.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self._call("GET", f"/api/v1/jobs/{job_id}")
            assert reply.status == 200, reply.body
            job = dict(reply.json)
            if job["state"] in FINAL:
                return job
            time.sleep(0.5)
        raise AssertionError(f"job {job_id} did not finish in {timeout} s")

    def cancel(self, job_id: str) -> Reply:
        return self._call("POST", f"/api/v1/jobs/{job_id}/cancel", {})

    def approve(self, job_id: str) -> Reply:
        return self._call("POST", f"/api/v1/jobs/{job_id}/approve", {})

    def install_free(self, job_id: str) -> Reply:
        """The Generations row's Install (free): a paid job whose outputs did not go in."""
        return self._call("POST", f"/api/v1/jobs/{job_id}/retry", {})

    # -- several at once: a batch of pictures, a character's moves ---------------------

    def batch(self, body: dict[str, Any], pictures: list[str]) -> list[dict[str, Any]]:
        """Several pictures selected, animated with the form's settings: the batch's quote,
        then exactly that batch (approved as a whole when its total is over a budget)."""
        sent = {k: v for k, v in body.items() if k not in ("image_path", "name")}
        sent["image_paths"] = pictures
        quoted = self._call("POST", "/api/v1/batch/quote", sent)
        assert quoted.status == 200, quoted.body
        sent["quote_id"] = quoted.json["quote_id"]
        if quoted.json["budget"]["over"]:
            sent["approve"] = True
        made = self._call("POST", "/api/v1/batch", sent)
        assert made.status == 202, made.body
        return list(made.json["data"])

    # -- the studio: models, generations and their actions -----------------------------

    def models(self) -> list[dict[str, Any]]:
        reply = self._call("GET", "/api/v1/models")
        assert reply.status == 200, reply.body
        return list(reply.json["data"])

    def generations(self) -> list[dict[str, Any]]:
        """The generations panel: this project's jobs, newest first (a daemon without
        that route gives its job list, which both plugins narrow to the project)."""
        root = str(self.project_root)
        reply = self._call("GET", f"/api/v1/generations?project={quote(root, safe='')}")
        assert reply.status == 200, reply.body
        listed = self._call("GET", "/api/v1/jobs")
        assert listed.status == 200, listed.body
        return list(reply.json["data"])

    def variation_bounds(self) -> tuple[int, int]:
        """As the dock reads them: the count's bounds from the daemon's own API description."""
        reply = self._call("GET", "/api/v1/openapi.json")
        assert reply.status == 200, reply.body
        for name, schema in reply.json["components"]["schemas"].items():
            count = schema.get("properties", {}).get("count", {})
            if name.lower().startswith("variation") and "maximum" in count:
                return int(count.get("minimum", 2)), int(count["maximum"])
        raise AssertionError("the daemon's API description gives no variation count bounds")

    def quote_variations(self, generation_id: str, count: int) -> dict[str, Any]:
        path = f"/api/v1/generations/{generation_id}/variations"
        reply = self._call("POST", path, {"count": count, "quote_only": True})
        assert reply.status == 200, reply.body
        return dict(reply.json)

    # -- the Unity window's other generation actions ------------------------------------

    def again(self, generation_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Generate again: the price of a new seed first, then that quote and seed spent."""
        path = f"/api/v1/generations/{generation_id}/again"
        quoted = self._call("POST", path, {"quote_only": True})
        assert quoted.status == 200, quoted.body
        made = self._call(
            "POST", path, {"quote_id": quoted.json["quote_id"], "seed": quoted.json["seed"]}
        )
        assert made.status == 202, made.body
        return dict(quoted.json), dict(made.json)

    def make_variations(self, generation_id: str, offer: dict[str, Any]) -> list[dict[str, Any]]:
        path = f"/api/v1/generations/{generation_id}/variations"
        body = {"count": offer["count"], "quote_id": offer["quote_id"], "seeds": offer["seeds"]}
        made = self._call("POST", path, body)
        assert made.status == 202, made.body
        return list(made.json["data"])

    def contact_sheet(
        self, generation_id: str, times: list[float], picture_too: bool = True
    ) -> tuple[dict[str, Any], bytes]:
        """The sheet's cells, then (the Unity window) its picture from the path the reply
        names; the Godot dock fetches that path without naming it."""
        path = f"/api/v1/generations/{generation_id}/contact_sheet"
        made = self._call("POST", path, {"times": times})
        assert made.status == 200, made.body
        assert made.json["image"].startswith(f"{path}.png")
        if not picture_too:
            return dict(made.json), b""
        picture = self._call("GET", made.json["image"])
        assert picture.status == 200
        return dict(made.json), picture.body

    def recut(self, generation_id: str, body: dict[str, Any]) -> dict[str, Any]:
        made = self._call("POST", f"/api/v1/generations/{generation_id}/recut", body)
        assert made.status == 202, made.body
        return dict(made.json)

    def import_again(self, generation_id: str, target_folder: str | None = None) -> dict[str, Any]:
        body = {} if target_folder is None else {"target_folder": target_folder}
        made = self._call("POST", f"/api/v1/generations/{generation_id}/import", body)
        assert made.status == 202, made.body
        return dict(made.json)

    def remove_files(self, generation_id: str) -> dict[str, Any]:
        removed = self._call("POST", f"/api/v1/generations/{generation_id}/remove_files", {})
        assert removed.status == 200, removed.body
        return dict(removed.json)

    def reveal(self, generation_id: str) -> str:
        """The folder the Godot dock opens, as the daemon names it."""
        shown = self._call("GET", f"/api/v1/generations/{generation_id}/reveal")
        assert shown.status == 200, shown.body
        return str(shown.json["path"])
