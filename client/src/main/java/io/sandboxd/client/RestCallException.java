package io.sandboxd.client;

import java.net.http.HttpHeaders;
import java.util.Locale;

/**
 * The REST API answered with an HTTP error: the status and the JSON error body's {@code code}
 * and {@code message} (derived from the status when there is no body, e.g. for HEAD).
 */
public final class RestCallException extends SandboxdException {
    private final String method;
    private final String path;
    private final int httpStatus;
    private final String errorCode;
    private final String errorMessage;
    private final transient HttpHeaders headers;

    public RestCallException(
            String method, String path, int httpStatus, String errorCode, String errorMessage, HttpHeaders headers) {
        super(method + " " + path + ": " + httpStatus + " " + errorCode
                + (errorMessage == null ? "" : ": " + errorMessage));
        this.method = method;
        this.path = path;
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
        this.errorMessage = errorMessage;
        this.headers = headers;
    }

    public String method() {
        return method;
    }

    /** The sandbox path (with a leading {@code /}) or the route, e.g. {@code /v1/health}. */
    public String path() {
        return path;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /** The body's {@code code}, e.g. {@code NOT_FOUND}; from the status when the body had none. */
    public String errorCode() {
        return errorCode;
    }

    /** The body's {@code message}, or null when there was no JSON body. */
    public String errorMessage() {
        return errorMessage;
    }

    public HttpHeaders headers() {
        return headers;
    }

    /** The code the daemon uses for an HTTP status, for responses without a body. */
    static String codeForStatus(int status) {
        return switch (status) {
            case 400 -> "INVALID_ARGUMENT";
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "PERMISSION_DENIED";
            case 404 -> "NOT_FOUND";
            case 405 -> "METHOD_NOT_ALLOWED";
            case 409 -> "CONFLICT";
            case 412 -> "PRECONDITION_FAILED";
            case 416 -> "RANGE_NOT_SATISFIABLE";
            case 503 -> "UNAVAILABLE";
            case 507 -> "INSUFFICIENT_STORAGE";
            default -> status >= 500 ? "INTERNAL" : "HTTP_" + status;
        };
    }

    /** {@code NOT_FOUND} → {@code not found}. */
    public String errorPhrase() {
        return errorCode.toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
