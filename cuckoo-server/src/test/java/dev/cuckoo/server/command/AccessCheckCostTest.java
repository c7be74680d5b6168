package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.TestServers;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The ACL check's cost for the default user (every command, key and channel allowed), same run, A/B
 * at the dispatcher: CF.ADD and CF.EXISTS through {@link Commands#execute} for a session of the
 * default user (the check runs its fast path) and for a session without a user (the master's link:
 * no check at all), interleaved, measured in the thread's CPU time. Without the network around it
 * the check's share is larger than a client would see, so the ratio bounds the throughput cost from
 * above. Slow: run with {@code -Dtest.excludedTags=none -Dtest=AccessCheckCostTest}.
 */
@Tag("slow")
class AccessCheckCostTest {
  private static final int OPS = 100_000;
  private static final int ROUNDS = 13;

  private static byte[][] line(String... words) {
    byte[][] args = new byte[words.length][];
    for (int i = 0; i < words.length; i++) {
      args[i] = words[i].getBytes(StandardCharsets.US_ASCII);
    }
    return args;
  }

  /**
   * Returns the CPU time of this thread per request, in ns: the machine may be shared, and the time
   * other processes take from this thread is not the check's.
   */
  private static long nanosPerOp(Commands commands, Session session, byte[][][] lines) {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long start = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < OPS; i++) {
      commands.execute(session, lines[i & (lines.length - 1)]);
    }
    return (threads.getCurrentThreadCpuTime() - start) / OPS;
  }

  @Test
  void defaultUser_checkFastPath_costsUnderFivePercentOfDispatch() {
    ServerContext context =
        new ServerContext(TestServers.memoryOnly().build().parameters(), new Keyspace());
    Commands commands = new Commands(context);
    Session checked = new Session(1, Reply.discarding(), new Authentication(true), false);
    checked.user(context.acl().defaultUser());
    Session unchecked = new Session(2, Reply.discarding(), new Authentication(true), false);
    commands.execute(checked, line("CF.RESERVE", "cf", "10000000"));
    byte[][][] adds = new byte[1024][][];
    byte[][][] exists = new byte[1024][][];
    for (int i = 0; i < adds.length; i++) {
      adds[i] = line("CF.ADD", "cf", "item" + i * 7919);
      exists[i] = line("CF.EXISTS", "cf", "item" + i * 104_729);
    }
    List<Double> addRatios = new ArrayList<>();
    List<Double> existsRatios = new ArrayList<>();
    StringBuilder raw = new StringBuilder();
    for (int round = 0; round < ROUNDS; round++) {
      boolean checkedFirst = round % 2 == 0;
      long addChecked;
      long addUnchecked;
      if (checkedFirst) {
        addChecked = nanosPerOp(commands, checked, adds);
        addUnchecked = nanosPerOp(commands, unchecked, adds);
      } else {
        addUnchecked = nanosPerOp(commands, unchecked, adds);
        addChecked = nanosPerOp(commands, checked, adds);
      }
      long existsChecked;
      long existsUnchecked;
      if (checkedFirst) {
        existsChecked = nanosPerOp(commands, checked, exists);
        existsUnchecked = nanosPerOp(commands, unchecked, exists);
      } else {
        existsUnchecked = nanosPerOp(commands, unchecked, exists);
        existsChecked = nanosPerOp(commands, checked, exists);
      }
      if (round >= 3) {
        // the first rounds warm the JIT up
        addRatios.add((double) addChecked / addUnchecked);
        existsRatios.add((double) existsChecked / existsUnchecked);
      }
      raw.append(
          String.format(
              "round %d: CF.ADD %d/%d ns, CF.EXISTS %d/%d ns of CPU (checked/unchecked)%n",
              round, addChecked, addUnchecked, existsChecked, existsUnchecked));
    }
    double add = median(addRatios);
    double exist = median(existsRatios);
    System.out.printf(
        "%sACL check cost, median ratio checked/unchecked: CF.ADD %.3f, CF.EXISTS %.3f%n",
        raw, add, exist);
    assertTrue(add < 1.05 && exist < 1.05, raw.toString());
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
