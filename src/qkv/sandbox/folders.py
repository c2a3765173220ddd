"""Folders of the sandbox: a private one made for a child to work in, and the removal of any folder a
child could have written in (whatever it left there: links, folders nested thousands deep).
"""

from __future__ import annotations

import os


def private_folder(prefix: str) -> str:
    """A new folder named `prefix` plus a random suffix, that only its owner can enter (tempfile.mkdtemp's
    way, with fewer steps, more randomness and no module a zygote would keep for every child)."""
    while True:
        path = prefix + os.urandom(8).hex()
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: str) -> None:
    """Remove a folder a child could write in, and everything in it, as far as it can be removed.

    shutil.rmtree recurses once per level, so a child's folders nested 5,000 deep raise RecursionError
    out of it (ignore_errors or not) in the grader. This walks down and up again instead, holding two
    descriptors at most, never follows a link, and leaves what will not go (it never loops on it)."""
    try:
        fd = os.open(path, _FOLDER)
    except FileNotFoundError:
        return
    except OSError:  # not a folder (a link, say): the name itself goes
        try:
            os.unlink(path)
        except OSError:
            pass
        return
    # (name, inode) of each folder entered below `path`; inodes that stay.
    entered: list[tuple[str, int]] = []
    stuck: set[int] = set()
    try:
        while True:
            inner = _clear_files(fd, stuck)
            if inner is not None:
                try:
                    sub = os.open(inner[0], _FOLDER, dir_fd=fd)
                except OSError:
                    stuck.add(inner[1])
                    continue
                os.close(fd)
                fd = sub
                entered.append(inner)
                continue
            if not entered:
                break
            parent = os.open("..", _FOLDER, dir_fd=fd)
            os.close(fd)
            fd = parent
            name, inode = entered.pop()
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                stuck.add(inode)
    except OSError:  # the way back up is gone: leave the rest
        pass
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        pass


def _clear_files(fd: int, stuck: set[int]):
    """Unlink what is not a folder in the open folder `fd`; the (name, inode) of a folder in it still to
    remove, or None."""
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                try:
                    if not entry.is_dir(follow_symlinks=False):
                        os.unlink(entry.name, dir_fd=fd)
                    elif entry.inode() not in stuck:
                        return entry.name, entry.inode()
                except OSError:
                    pass
    except OSError:  # it cannot be read: nothing in it goes
        pass
    return None
