package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.FastThreadLocalThread;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The counters of one command added up across threads: network threads count in cells of their own,
 * other threads in shared counters, and the readers see the sum of both.
 */
class CommandStatsCellsTest {
  /**
   * Runs {@code calls} calls of {@code micros} µs each on a new network-style thread, to its end.
   */
  private static void callOnNetworkThread(CommandStats stats, int calls, long micros)
      throws InterruptedException {
    Thread thread =
        new FastThreadLocalThread(
            () -> {
              for (int i = 0; i < calls; i++) {
                stats.called(micros, i % 2 == 0, true);
              }
            });
    thread.start();
    thread.join();
  }

  @Test
  void called_onSeveralThreads_readersSeeTheSum() throws InterruptedException {
    CommandStats stats = new CommandStats();
    assertNull(stats.latencies());
    stats.called(7, true, true); // this thread: the shared counters
    Thread[] threads = new Thread[3];
    for (int t = 0; t < threads.length; t++) {
      long micros = 10L * (t + 1);
      threads[t] =
          new FastThreadLocalThread(
              () -> {
                for (int i = 0; i < 1000; i++) {
                  stats.called(micros, i % 4 == 0, true);
                }
              });
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertEquals(3001, stats.calls());
    assertEquals(7 + 1000 * (10 + 20 + 30), stats.micros());
    assertEquals(1 + 3 * 250, stats.failedCalls());
    Histogram latencies = stats.latencies();
    assertEquals(3001, latencies.getTotalCount());
    assertEquals(1000, latencies.getCountAtValue(20_000));
    assertEquals(1, latencies.getCountAtValue(7_000));
    assertTrue(stats.used());
  }

  @Test
  void called_afterItsThreadEnded_countsStayAndTheSlotIsReused() throws InterruptedException {
    CommandStats stats = new CommandStats();
    callOnNetworkThread(stats, 5, 3);
    callOnNetworkThread(stats, 6, 4);
    assertEquals(11, stats.calls());
    assertEquals(5 * 3 + 6 * 4, stats.micros());
    assertEquals(3 + 3, stats.failedCalls());
    assertEquals(11, stats.latencies().getTotalCount());
  }

  @Test
  void reset_clearsCellsOfEveryThread() throws InterruptedException {
    CommandStats stats = new CommandStats();
    callOnNetworkThread(stats, 5, 3);
    stats.called(1, false, true);
    stats.rejected();
    stats.reset();
    assertEquals(0, stats.calls());
    assertEquals(0, stats.micros());
    assertEquals(0, stats.failedCalls());
    assertEquals(0, stats.rejectedCalls());
    assertNull(stats.latencies());
    assertEquals(false, stats.used());
    // a cell of the old epoch is cleared before its thread counts again
    callOnNetworkThread(stats, 2, 9);
    assertEquals(2, stats.calls());
    assertEquals(18, stats.micros());
    assertEquals(1, stats.failedCalls());
    assertEquals(2, stats.latencies().getTotalCount());
  }

  @Test
  void called_withoutLatencyTracking_leavesNoHistogram() throws InterruptedException {
    CommandStats stats = new CommandStats();
    Thread thread = new FastThreadLocalThread(() -> stats.called(5, false, false));
    thread.start();
    thread.join();
    assertEquals(1, stats.calls());
    assertNull(stats.latencies());
  }
}
