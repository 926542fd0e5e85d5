package io.sandboxd.daemon.fs.watch;

/** A file as inotify names it: its directory's watch descriptor and its raw name. */
record FileKey(int wd, String name) {}
