package io.sandboxd.router.routing;

/** A request the router refuses before contacting any backend; carries the HTTP status and the JSON detail. */
public final class RouteException extends Exception {
    private final int status;

    public RouteException(int status, String detail) {
        super(detail, null, false, false);
        this.status = status;
    }

    public static RouteException badRequest(String detail) {
        return new RouteException(400, detail);
    }

    public int status() {
        return status;
    }

    public String detail() {
        return getMessage();
    }
}
