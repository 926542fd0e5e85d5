package io.sandboxd.bench;

/** A whole-number command-line value within bounds, with an error naming the option and the bounds. */
public final class IntOption {
    private IntOption() {}

    public static int bounded(String name, String v, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a whole number, got '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + n);
        }
        return n;
    }
}
