"""benchvote._quiet: native output silenced and the descriptors given back."""

from __future__ import annotations

import os


def test_quiet_solver_output_restores_the_descriptors(capfd):
    from benchvote._quiet import quiet_solver_output

    print("before", flush=True)
    with quiet_solver_output():
        os.write(1, b"native noise\n")
        with quiet_solver_output():  # nested blocks share the redirection
            os.write(2, b"more noise\n")
    print("after", flush=True)
    out, err = capfd.readouterr()
    assert out == "before\nafter\n" and err == ""
