package io.sandboxd.reliability.soak;

/** The daemon answered, but not what the contract says. */
final class WrongAnswer extends Exception {
    WrongAnswer(String message) {
        super(message, null, false, false);
    }

    static void check(boolean ok, String message) throws WrongAnswer {
        if (!ok) {
            throw new WrongAnswer(message);
        }
    }
}
