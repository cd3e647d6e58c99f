"""benchvote.audit._run: a section that fails is reported in its place and every other section stands."""

from __future__ import annotations

import json

from audit_support import FAST, normal_board

from benchvote.audit import SECTIONS, audit


def _broken(monkeypatch, name: str, part: str = "compute") -> None:
    import dataclasses

    from benchvote.audit import _registry

    def boom(*args, **kwargs):
        raise ZeroDivisionError("planted failure")

    monkeypatch.setitem(_registry._REGISTRY, name, dataclasses.replace(_registry._REGISTRY[name], **{part: boom}))


def test_a_section_that_fails_is_reported_in_its_place_and_every_other_section_stands(monkeypatch):
    s = normal_board(seed=1, missing=1)
    whole = audit(s, **FAST).to_dict()["sections"]
    _broken(monkeypatch, "correlation")
    a = audit(s, **FAST)
    assert a.failed == ["correlation"] and isinstance(a.errors["correlation"], ZeroDivisionError)
    bad = a.sections["correlation"]
    assert bad["status"] == "error" and "ZeroDivisionError: planted failure" in bad["error"]
    assert "the correlation section failed" in bad["reason"] and "Traceback" not in bad["reason"]
    ours = a.to_dict()["sections"]
    for name in whole:
        if name != "correlation":
            assert ours[name] == whole[name], name
    page = a.to_html()
    assert "This section failed" in page and "planted failure" in page
    assert page.count(" data-section=") == len(whole)


def test_the_sections_that_build_on_a_failed_section_say_so(monkeypatch):
    _broken(monkeypatch, "rankings")
    a = audit(normal_board(seed=1), **FAST)
    assert a.failed == ["rankings"]
    for name, sec in SECTIONS.items():
        if "rankings" in sec.needs and name in a.sections:
            assert a.sections[name]["status"] == "not_applicable", name
            assert "Rankings under several rules" in a.sections[name]["reason"], name
    assert a.sections["spectrum"]["status"] == "ok"
    assert all(v["section"] != "rankings" for v in a.verdict)


def test_a_section_whose_page_fails_is_reported_in_the_page_and_in_the_json_written_after(monkeypatch):
    _broken(monkeypatch, "spectrum", "render")
    a = audit(normal_board(seed=1), **FAST)
    assert not a.failed
    page = a.to_html()
    assert a.failed == ["spectrum"] and "This section failed" in page
    assert json.loads(a.to_json())["sections"]["spectrum"]["status"] == "error"
