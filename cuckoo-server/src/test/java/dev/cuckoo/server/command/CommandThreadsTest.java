package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** /proc/[pid]/stat parsed for INFO cpu's user and system times, and the command threads' time. */
class CommandThreadsTest {
  @Test
  void parseStat_knownLines_userAndSystemSecondsAtOneHundredTicks() {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    String plain = "4242 (java) S 1 4242 4242 0 -1 4194560 10 0 0 0 1234 567 0 0 20 0 30 0 1";
    assertArrayEquals(new double[] {12.34, 5.67}, CommandThreads.parseStat(plain), 1e-9);
    // a command name with spaces and parentheses: the fields start after the last ')'
    String odd = "7 (a) b (c) d) R 1 7 7 0 -1 0 0 0 0 0 300 25 0 0 20 0 1 0 5";
    assertArrayEquals(new double[] {3.0, 0.25}, CommandThreads.parseStat(odd), 1e-9);
    assertNull(CommandThreads.parseStat("no parenthesis here"));
    assertNull(CommandThreads.parseStat("1 (x) S 1 2 3"));
    assertNull(CommandThreads.parseStat("1 (x) S 1 1 1 0 -1 0 0 0 0 0 u s 0"));
  }

  @Test
  void commandThreads_busyThreadOfThatName_isCounted() throws Exception {
    double[] before = CommandThreads.commandThreadsUserSystem();
    assertNotNull(before, "this JVM measures thread CPU time");
    Thread busy =
        new Thread(
            () -> {
              long end = System.nanoTime() + 300_000_000L;
              long x = 0;
              while (System.nanoTime() < end) {
                x += Long.numberOfTrailingZeros(x + 1);
              }
              if (x == 42) {
                System.out.println(x);
              }
            },
            CommandThreads.PREFIX + "-test-1");
    busy.start();
    Thread.sleep(250);
    double[] during = CommandThreads.commandThreadsUserSystem();
    busy.join();
    assertTrue(
        during[0] + during[1] > before[0] + before[1] + 0.02,
        "before " + before[0] + "+" + before[1] + ", during " + during[0] + "+" + during[1]);
  }
}
