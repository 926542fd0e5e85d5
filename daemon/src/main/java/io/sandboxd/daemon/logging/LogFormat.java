package io.sandboxd.daemon.logging;

public enum LogFormat {
    TEXT,
    JSON
}
