package dev.cuckoo.server.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The migrate connection cache keeps connections as Redis keeps its migrate sockets. */
class TargetSocketsTest {
  private final AtomicLong clock = new AtomicLong(1_000_000);

  @Test
  void giveBack_thenTake_sameConnection_untilIdleForMoreThanTenSeconds() throws IOException {
    try (ServerSocket target = new ServerSocket(0);
        TargetSockets sockets = new TargetSockets(clock::get)) {
      String port = Integer.toString(target.getLocalPort());
      TargetConnection first = sockets.take("127.0.0.1", port, 1000);
      assertEquals(1, sockets.size());
      sockets.giveBack("127.0.0.1", port, first);
      assertSame(first, sockets.take("127.0.0.1", port, 1000), "the cached connection");
      sockets.giveBack("127.0.0.1", port, first);
      clock.addAndGet(TargetSockets.IDLE_MILLIS);
      sockets.closeIdle();
      assertEquals(1, sockets.size(), "10 s unused: kept");
      clock.addAndGet(1);
      sockets.closeIdle();
      assertEquals(0, sockets.size(), "more than 10 s unused: closed");
      TargetConnection fresh = sockets.take("127.0.0.1", port, 1000);
      assertNotSame(first, fresh);
      sockets.drop(fresh);
      assertEquals(0, sockets.size(), "a failed connection is not kept");
    }
  }

  @Test
  void giveBack_pastTheLimit_closesOneToMakeRoom() throws IOException {
    try (ServerSocket target = new ServerSocket(0, 2 * TargetSockets.MAX_CACHED);
        TargetSockets sockets = new TargetSockets(clock::get)) {
      String port = Integer.toString(target.getLocalPort());
      // the same target under other names, as a command may name it
      for (int i = 0; i <= TargetSockets.MAX_CACHED; i++) {
        TargetConnection connection = sockets.take("127.0.0.1", port, 1000);
        sockets.giveBack("name" + i, port, connection);
      }
      assertEquals(TargetSockets.MAX_CACHED, sockets.size());
    }
  }

  @Test
  void take_unresolvableHost_throws() {
    try (TargetSockets sockets = new TargetSockets(clock::get)) {
      assertThrows(
          UnknownHostException.class, () -> sockets.take("no-such-host.invalid", "1", 100));
      assertEquals(0, sockets.size());
    }
  }
}
