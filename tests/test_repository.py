"""Repository links: read from git's origin or BENCHVOTE_REPOSITORY, and left out when there is no repository."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from benchvote._repository import ENV, repository_url, web_address

ROOT = Path(__file__).resolve().parents[1]


def _repolinks():
    spec = importlib.util.spec_from_file_location("repolinks", ROOT / "book" / "_ext" / "repolinks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git_checkout(path: Path, origin: str | None) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if origin is not None:
        subprocess.run(["git", "-C", str(path), "remote", "add", "origin", origin], check=True)
    return path


@pytest.mark.parametrize(
    ("remote", "address"),
    [
        ("https://github.com/someone/benchvote", "https://github.com/someone/benchvote"),
        ("https://github.com/someone/benchvote.git", "https://github.com/someone/benchvote"),
        ("git@github.com:someone/bench-vote.git", "https://github.com/someone/bench-vote"),
        ("ssh://git@gitlab.com:2222/group/project.git", "https://gitlab.com/group/project"),
        ("https://user:token@example.org/a/b.git/", "https://example.org/a/b"),
        ("/srv/git/benchvote.git", None),
        ("file:///srv/git/benchvote.git", None),
        ("../benchvote", None),
        ("", None),
    ],
)
def test_web_address_of_a_remote(remote, address):
    assert web_address(remote) == address


def test_the_book_reads_a_fake_origin_and_passes_it_on(tmp_path):
    repolinks = _repolinks()
    checkout = _git_checkout(tmp_path / "clone", "git@github.com:someone/fork.git")
    assert repolinks.origin_remote(checkout) == "git@github.com:someone/fork.git"
    environ: dict[str, str] = {}
    assert repolinks.build_repository(environ, checkout) == "https://github.com/someone/fork"
    assert repository_url(environ) == "https://github.com/someone/fork", "the kernels see the same address"


def test_no_origin_and_no_git_mean_no_repository(tmp_path):
    repolinks = _repolinks()
    environ: dict[str, str] = {}
    assert repolinks.build_repository(environ, _git_checkout(tmp_path / "bare", None)) is None
    assert environ == {ENV: ""}, "the kernels are told there is none"
    (tmp_path / "plain").mkdir()
    assert repolinks.build_repository({}, tmp_path / "plain") is None


def test_the_environment_overrides_origin_and_empty_means_none(tmp_path):
    repolinks = _repolinks()
    checkout = _git_checkout(tmp_path / "clone", "https://github.com/someone/fork")
    assert repolinks.build_repository({ENV: "https://gitlab.com/g/p.git"}, checkout) == "https://gitlab.com/g/p"
    assert repolinks.build_repository({ENV: ""}, checkout) is None


def test_without_the_variable_the_library_links_no_repository(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert repository_url() is None


def test_book_theme_options_with_and_without_a_repository():
    repolinks = _repolinks()
    config = {"launch_buttons": {"binderhub_url": "https://mybinder.org"}, "repository_url": "", "x": 1}
    linked = repolinks.theme_links(config, "https://github.com/someone/fork")
    assert linked["repository_url"] == "https://github.com/someone/fork" and linked["use_repository_button"]
    assert linked["launch_buttons"] == config["launch_buttons"] and linked["x"] == 1
    unlinked = repolinks.theme_links(config, None)
    assert "repository_url" not in unlinked and not unlinked["use_repository_button"]
    assert not unlinked["launch_buttons"], "no launch button without a repository"
    assert config["repository_url"] == "", "the caller's options are not changed"


def test_internal_error_names_the_repository_issues_only_when_known(monkeypatch, capsys):
    from benchvote import cli

    monkeypatch.setenv(ENV, "https://github.com/someone/fork")
    assert cli._internal(RuntimeError("boom")) == 1
    assert "https://github.com/someone/fork/issues" in capsys.readouterr().err
    monkeypatch.setenv(ENV, "")
    assert cli._internal(RuntimeError("boom")) == 1
    err = capsys.readouterr().err
    assert "http" not in err and "report it to the benchvote authors" in err
