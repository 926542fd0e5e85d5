package io.sandboxd.daemon.process.os;

/**
 * The fields of one {@code /proc/PID/stat} line that the tree usage needs. The command name
 * (field 2) is in parentheses and may itself contain spaces and parentheses, so the other fields
 * are counted from the last {@code ')'}.
 *
 * @param session    field 6
 * @param cpuTicks   utime + stime + cutime + cstime (fields 14-17): the process's own CPU and
 *                   that of the children it reaped, in clock ticks
 * @param rssPages   field 24
 */
public record ProcStatLine(long pid, long session, long cpuTicks, long rssPages) {
    /** Fields after the command name: state is [0], session [3], utime [11] ... cstime [14], rss [21]. */
    private static final int SESSION = 3;

    private static final int UTIME = 11;
    private static final int RSS = 21;

    /** @throws IllegalArgumentException if {@code line} is not a stat line */
    public static ProcStatLine parse(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open <= 0 || close < open || close + 2 >= line.length()) {
            throw new IllegalArgumentException("not a /proc stat line: " + line);
        }
        try {
            long pid = Long.parseLong(line.substring(0, open).trim());
            String[] f = line.substring(close + 2).trim().split(" +");
            if (f.length <= RSS) {
                throw new IllegalArgumentException("not a /proc stat line: " + line);
            }
            long cpu = 0;
            for (int i = UTIME; i < UTIME + 4; i++) {
                cpu += Math.max(0, Long.parseLong(f[i]));
            }
            return new ProcStatLine(pid, Long.parseLong(f[SESSION]), cpu, Math.max(0, Long.parseLong(f[RSS])));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a /proc stat line: " + line, e);
        }
    }
}
