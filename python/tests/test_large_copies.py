"""copy_from_runtime of files larger than one read_file result (64 KiB of text, 48 KiB of
binary inline): the client follows the link to the whole file, so nothing is cut or mixed with
the result's note."""

import os

from paddock import SandboxSession


def test_files_over_one_result_come_back_whole(tmp_path):
    text = "".join("row %d, naïve €\n" % i for i in range(12000)).encode("utf-8")
    binary = os.urandom(100 * 1024)
    with SandboxSession(lang="python") as session:
        for name, data in (("medium.txt", text), ("medium.bin", binary)):
            (tmp_path / name).write_bytes(data)
            session.copy_to_runtime(str(tmp_path / name), name)
            session.copy_from_runtime(name, str(tmp_path / "back" / name))
            assert (tmp_path / "back" / name).read_bytes() == data, name
