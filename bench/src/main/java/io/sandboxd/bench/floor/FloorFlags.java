package io.sandboxd.bench.floor;

/**
 * The flags a floor server takes: the ones the testkit launcher gives the daemon ({@code
 * --listen-host}, {@code --grpc-port}, {@code --rest-port}); anything else (its {@code
 * --root-dir}) is ignored, since a floor touches no files.
 */
record FloorFlags(String host, int grpcPort, int restPort) {
    static FloorFlags parse(String[] args) {
        String host = "127.0.0.1";
        int grpc = -1;
        int rest = -1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--listen-host" -> host = args[i + 1];
                case "--grpc-port" -> grpc = Integer.parseInt(args[i + 1]);
                case "--rest-port" -> rest = Integer.parseInt(args[i + 1]);
                default -> {} // --root-dir
            }
        }
        if (grpc < 0 || rest < 0) {
            throw new IllegalArgumentException("usage: FLOOR --listen-host H --grpc-port N --rest-port N");
        }
        return new FloorFlags(host, grpc, rest);
    }
}
