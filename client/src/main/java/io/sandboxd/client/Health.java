package io.sandboxd.client;

/** {@code GET /v1/health}: {@code status} is {@code ok} while serving. */
public record Health(String status, long uptimeSeconds) {}
