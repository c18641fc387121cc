"""A container's filesystem: its own writable layer plus the Pod's volumes mounted into it.

Each container start gets a fresh layer (files written by the previous instance are gone),
while a volume's store belongs to the Pod and outlives container restarts (``emptyDir``)
or is filled from the API (``configMap``, ``secret``, the service-account token). A store
is plain data, ``{"files": {relpath: text}, "dirs": [relpath, ...]}``, shared by every
container that mounts it.
"""

from __future__ import annotations

import functools
import posixpath

ENOENT = "ENOENT"
EROFS = "EROFS"
EISDIR = "EISDIR"
ENOTDIR = "ENOTDIR"
EEXIST = "EEXIST"
ENOTEMPTY = "ENOTEMPTY"

BASE_DIRS = (
    "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/media", "/mnt", "/opt", "/proc",
    "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/usr/bin", "/usr/lib",
    "/usr/local", "/usr/local/bin", "/usr/sbin", "/usr/share", "/var", "/var/cache",
    "/var/lib", "/var/log", "/var/run", "/var/tmp", "/proc/1", "/proc/1/fd", "/proc/self",
    "/proc/self/fd", "/dev/shm",
)  # fmt: skip
# Paths that are not files: writes go to the log or nowhere, reads give nothing.
SPECIAL = ("/dev/null", "/dev/stdout", "/dev/stderr", "/proc/self/fd/1", "/proc/self/fd/2",
           "/proc/1/fd/1", "/proc/1/fd/2", "/dev/fd/1", "/dev/fd/2", "/dev/zero",
           "/dev/random", "/dev/urandom", "/dev/tty", "/dev/stdin")  # fmt: skip


def new_store(files: dict[str, str] | None = None, dirs: list[str] | None = None) -> dict:
    """A volume's contents (relative paths, no leading slash)."""
    return {"files": dict(files or {}), "dirs": sorted(set(dirs or ()))}


@functools.lru_cache(maxsize=1024)
def _normalize(path: str, cwd: str) -> str:
    """:meth:`FileSystem.normalize`, remembered: probes and loops ask for the same few paths
    every period."""
    if not path.startswith("/"):
        path = posixpath.join(cwd or "/", path)
    path = posixpath.normpath(path)
    return "/" + path.lstrip("/") if path != "/" else "/"


class FileSystem:
    """The tree one container sees. Paths are absolute and normalised before use."""

    def __init__(self, files: dict[str, str], dirs: list[str], mounts: list[tuple]) -> None:
        self.files = dict(files)
        self.dirs = set(BASE_DIRS) | set(dirs)
        for path in list(self.files):
            self._add_parents(path)
        # (mount path, store, read only, subPath), longest path first
        self.mounts = sorted(
            ((m[0], m[1], m[2], m[3] if len(m) > 3 else "") for m in mounts),
            key=lambda m: -len(m[0]),
        )
        for mount_path, _store, _ro, _sub in self.mounts:
            self.dirs.add(mount_path)
            self._add_parents(mount_path)
        self.version = 0

    def _add_parents(self, path: str) -> None:
        parent = posixpath.dirname(path)
        while parent and parent not in self.dirs:
            self.dirs.add(parent)
            parent = posixpath.dirname(parent) if parent != "/" else ""

    # -- resolution -----------------------------------------------------------------------

    @staticmethod
    def normalize(path: str, cwd: str = "/") -> str:
        return _normalize(path, cwd)

    def _mount(self, path: str) -> tuple[dict, str, bool] | None:
        for mount_path, store, read_only, sub in self.mounts:
            if path == mount_path:
                rel = ""
            elif path.startswith(mount_path.rstrip("/") + "/"):
                rel = path[len(mount_path.rstrip("/")) + 1 :]
            else:
                continue
            if sub:
                rel = sub.strip("/") + ("/" + rel if rel else "")
            return store, rel, read_only
        return None

    # -- queries ---------------------------------------------------------------------------

    def is_dir(self, path: str) -> bool:
        mount = self._mount(path)
        if mount is not None:
            store, rel, _ = mount
            if rel == "":
                return True
            if rel not in store["files"] and any(path == m[0] for m in self.mounts):
                return True  # a subPath mount point: the kubelet creates a missing directory
            if rel in store["dirs"]:
                return True
            prefix = rel + "/"
            return any(name.startswith(prefix) for name in store["files"])
        return path in self.dirs

    def is_file(self, path: str) -> bool:
        mount = self._mount(path)
        if mount is not None:
            return mount[1] in mount[0]["files"]
        return path in self.files

    def exists(self, path: str) -> bool:
        return path in SPECIAL or self.is_file(path) or self.is_dir(path)

    def read(self, path: str) -> str | None:
        mount = self._mount(path)
        if mount is not None:
            return mount[0]["files"].get(mount[1])
        return self.files.get(path)

    def listdir(self, path: str) -> list[str]:
        names: set[str] = set()
        mount = self._mount(path)
        if mount is not None:
            store, rel = mount[0], mount[1]
            prefix = rel + "/" if rel else ""
            for name in [*store["files"], *store["dirs"]]:
                if name.startswith(prefix) and name != rel:
                    names.add(name[len(prefix) :].split("/", 1)[0])
        else:
            prefix = path.rstrip("/") + "/"
            for name in [*self.files, *self.dirs]:
                if name.startswith(prefix) and name != path:
                    names.add(name[len(prefix) :].split("/", 1)[0])
        for mount_path, _store, _ro, _sub in self.mounts:
            if posixpath.dirname(mount_path) == path:
                names.add(posixpath.basename(mount_path))
        return sorted(n for n in names if n)

    def all_paths(self) -> list[str]:
        """Every file and directory (for globbing)."""
        paths = set(self.files) | set(self.dirs)
        for mount_path, store, _ro, sub in self.mounts:
            base = mount_path.rstrip("/")
            paths.add(mount_path)
            prefix = sub.strip("/") + "/" if sub else ""
            for name in [*store["files"], *store["dirs"]]:
                if name.startswith(prefix):
                    paths.add(f"{base}/{name[len(prefix) :]}")
        return sorted(paths)

    # -- changes -----------------------------------------------------------------------

    def _parent_ok(self, path: str) -> str | None:
        parent = posixpath.dirname(path)
        if self.is_file(parent):
            return ENOTDIR
        if not self.is_dir(parent):
            return ENOENT
        return None

    def write(self, path: str, text: str, append: bool) -> str | None:
        """Create or write a file; an error code, or None."""
        if self.is_dir(path):
            return EISDIR
        error = self._parent_ok(path)
        if error:
            return error
        mount = self._mount(path)
        if mount is not None:
            store, rel, read_only = mount
            if read_only:
                return EROFS
            files = store["files"]
        else:
            files, rel = self.files, path
        files[rel] = (files.get(rel, "") + text) if append else text
        self.version += 1
        return None

    def remove(self, path: str, recursive: bool = False) -> str | None:
        mount = self._mount(path)
        if self.is_dir(path):
            if not recursive:
                return EISDIR
            if mount is not None and mount[1] == "":
                return "EBUSY"
            if mount is not None:
                store, rel, read_only = mount
                if read_only:
                    return EROFS
                prefix = rel + "/"
                store["files"] = {
                    k: v for k, v in store["files"].items() if not k.startswith(prefix)
                }
                store["dirs"] = [d for d in store["dirs"] if d != rel and not d.startswith(prefix)]
            else:
                prefix = path.rstrip("/") + "/"
                self.files = {k: v for k, v in self.files.items() if not k.startswith(prefix)}
                self.dirs = {d for d in self.dirs if d != path and not d.startswith(prefix)}
            self.version += 1
            return None
        if not self.is_file(path):
            return ENOENT
        if mount is not None:
            store, rel, read_only = mount
            if read_only:
                return EROFS
            del store["files"][rel]
        else:
            del self.files[path]
        self.version += 1
        return None

    def mkdir(self, path: str, parents: bool) -> str | None:
        if self.is_dir(path):
            return None if parents else EEXIST
        if self.is_file(path):
            return EEXIST
        if parents:
            parent = posixpath.dirname(path)
            if parent != path and not self.is_dir(parent):
                error = self.mkdir(parent, True)
                if error:
                    return error
        else:
            error = self._parent_ok(path)
            if error:
                return error
        mount = self._mount(path)
        if mount is not None:
            store, rel, read_only = mount
            if read_only:
                return EROFS
            store["dirs"] = sorted({*store["dirs"], rel})
        else:
            self.dirs.add(path)
        self.version += 1
        return None
