"""Socket.IO packets are JSON only: no walk of every payload for binary parts.

python-socketio's `Packet.data_is_binary` visits every value of a payload before encoding
it; a tick holds the Pod, its events and the kubectl views, and that walk was about a fifth
of the scheduler's time at 200 playing sessions (docs/workers.md, "Capacity").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from socketio.packet import Packet

from tests.samples import POD
from webapp import JsonPacket, create_app, socketio_of
from webapp.realtime import realtime_of


def test_ticks_and_snapshots_leave_without_a_walk_for_binary_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walked: list[Any] = []
    original = Packet.data_is_binary.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Packet], data: Any) -> bool:
        walked.append(data)
        return bool(original(cls, data))

    monkeypatch.setattr(Packet, "data_is_binary", classmethod(counting))
    app = create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_SCHEDULER": False,
        }
    )
    assert socketio_of(app).server.packet_class is JsonPacket
    tab = socketio_of(app).test_client(app)
    tab.get_received()
    tab.emit("join", {"yaml": POD})
    tab.emit("clock", {"op": "speed", "value": 10})
    tab.emit("clock", {"op": "play"})
    scheduler = realtime_of(app).scheduler
    for i in range(40):
        scheduler.tick(1000.0 + i * 0.1)
    received = tab.get_received()
    names = [message["name"] for message in received]
    assert "snapshot" in names and names.count("tick") >= 3
    ticks = [m["args"][0] for m in received if m["name"] == "tick"]
    assert any(tick["transitions"] for tick in ticks)
    # (The test client's own packets, the tab's events, are plain Packets: walked.)
    sent = [d for d in walked if isinstance(d, dict) and ("transitions" in d or "seq" in d)]
    assert sent == []  # a plain Packet would have walked every tick and snapshot
    Packet(data=["tick", {"seq": 1}])
    assert [d for d in walked if isinstance(d, dict) and "seq" in d] == [{"seq": 1}]
