package dev.cuckoo.server.command;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time as INFO cpu reports it: the process's, split into user and system time as Redis's
 * getrusage gives it, and that of the threads that run commands (Redis's main thread; here the
 * network threads, named {@link #PREFIX}-…, which parse and run every command).
 */
public final class CommandThreads {
  /** The name prefix of the threads that run commands. */
  public static final String PREFIX = "cuckoo-io";

  /** Linux's clock ticks per second (USER_HZ), the unit of /proc's CPU times. */
  private static final double TICKS_PER_SECOND = 100.0;

  private static final Path PROC_SELF_STAT = Path.of("/proc/self/stat");

  private CommandThreads() {}

  /**
   * Returns the process's {user, system} CPU seconds from /proc/self/stat, or null where that file
   * cannot be read (not Linux).
   */
  static double[] processUserSystem() {
    String stat;
    try {
      stat = Files.readString(PROC_SELF_STAT, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return parseStat(stat);
  }

  /**
   * Returns {user, system} CPU seconds from the text of a /proc/[pid]/stat file, or null if it is
   * not one: the fields after the command name (which may hold spaces and parentheses) start with
   * the state; utime and stime are the 12th and 13th of them.
   */
  static double[] parseStat(String stat) {
    int end = stat.lastIndexOf(')');
    if (end < 0) {
      return null;
    }
    String[] fields = stat.substring(end + 1).trim().split(" +");
    if (fields.length < 13) {
      return null;
    }
    try {
      long user = Long.parseLong(fields[11]);
      long system = Long.parseLong(fields[12]);
      return new double[] {user / TICKS_PER_SECOND, system / TICKS_PER_SECOND};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * Returns the {user, system} CPU seconds of the threads that run commands, or null where the JVM
   * does not measure thread CPU time.
   */
  static double[] commandThreadsUserSystem() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
      return null;
    }
    long userNanos = 0;
    long totalNanos = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null || !info.getThreadName().startsWith(PREFIX + "-")) {
        continue;
      }
      long total = threads.getThreadCpuTime(info.getThreadId());
      long user = threads.getThreadUserTime(info.getThreadId());
      if (total < 0 || user < 0) {
        // the thread ended meanwhile
        continue;
      }
      totalNanos += total;
      userNanos += user;
    }
    return new double[] {userNanos / 1e9, Math.max(0, totalNanos - userNanos) / 1e9};
  }
}
