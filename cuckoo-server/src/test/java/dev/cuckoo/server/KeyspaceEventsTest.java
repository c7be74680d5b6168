package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Push;
import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keyspace notifications as Redis publishes them: generic, expiry and new-key events on {@code
 * __keyspace@N__:key} and {@code __keyevent@N__:event}, only for the classes notify-keyspace-events
 * turns on; none for CF writes themselves (RedisBloom publishes none).
 */
class KeyspaceEventsTest {
  private static final Simple OK = new Simple("OK");

  private static List<Object> texts(Object reply) {
    List<?> elements = reply instanceof Push push ? push.elements() : (List<?>) reply;
    List<Object> texts = new ArrayList<>();
    for (Object element : elements) {
      texts.add(
          element instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : element);
    }
    return texts;
  }

  /** Reads the next pattern message and returns [channel, payload]. */
  private static List<Object> next(RespClient subscriber) throws IOException {
    List<Object> message = texts(subscriber.readWithin(Duration.ofSeconds(5)));
    assertEquals("pmessage", message.get(0), message.toString());
    return message.subList(2, 4);
  }

  @Test
  void flags_parseAndFormatAsRedis() {
    assertEquals("AKE", KeyspaceEvents.format(KeyspaceEvents.parse("KEA")));
    assertEquals("gxE", KeyspaceEvents.format(KeyspaceEvents.parse("Egx")));
    assertEquals("", KeyspaceEvents.format(KeyspaceEvents.parse("")));
    assertEquals("nKm", KeyspaceEvents.format(KeyspaceEvents.parse("mnK")));
    assertEquals(-1, KeyspaceEvents.parse("KEz?"));
  }

  @Test
  void events_genericExpiredAndNew_onBothChannelsInRedisOrder() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port());
        RespClient subscriber = new RespClient(server.port())) {
      subscriber.send("PSUBSCRIBE", "__key*__:*");
      assertEquals(List.of("psubscribe", "__key*__:*", 1L), texts(subscriber.read()));
      // off by default: nothing is published
      assertEquals(1L, client.call("CF.ADD", "quiet", "x"));
      assertThrows(
          SocketTimeoutException.class, () -> subscriber.readWithin(Duration.ofMillis(200)));

      assertEquals(OK, client.call("CONFIG", "SET", "notify-keyspace-events", "KEA"));
      assertEquals(
          List.of("notify-keyspace-events", "AKE"),
          texts(client.call("CONFIG", "GET", "notify-keyspace-events")));
      // A leaves out "new"; a CF write raises no event of its own
      assertEquals(1L, client.call("CF.ADD", "f", "x"));
      assertEquals(1L, client.call("EXPIRE", "f", "100"));
      assertEquals(Arrays.asList("__keyspace@0__:f", "expire"), next(subscriber));
      assertEquals(Arrays.asList("__keyevent@0__:expire", "f"), next(subscriber));
      assertEquals(OK, client.call("RENAME", "f", "g"));
      assertEquals(Arrays.asList("__keyspace@0__:f", "rename_from"), next(subscriber));
      assertEquals(Arrays.asList("__keyevent@0__:rename_from", "f"), next(subscriber));
      assertEquals(Arrays.asList("__keyspace@0__:g", "rename_to"), next(subscriber));
      assertEquals(Arrays.asList("__keyevent@0__:rename_to", "g"), next(subscriber));
      assertEquals(1L, client.call("MOVE", "g", "2"));
      assertEquals(Arrays.asList("__keyspace@0__:g", "move_from"), next(subscriber));
      assertEquals(Arrays.asList("__keyevent@0__:move_from", "g"), next(subscriber));
      assertEquals(Arrays.asList("__keyspace@2__:g", "move_to"), next(subscriber));
      assertEquals(Arrays.asList("__keyevent@2__:move_to", "g"), next(subscriber));
      assertEquals(1L, client.call("DEL", "quiet"));
      assertEquals(Arrays.asList("__keyspace@0__:quiet", "del"), next(subscriber));
      assertEquals(Arrays.asList("__keyevent@0__:del", "quiet"), next(subscriber));

      // only the key-event channel, expired and new keys
      assertEquals(OK, client.call("CONFIG", "SET", "notify-keyspace-events", "Exn"));
      assertEquals(OK, client.call("CF.RESERVE", "h", "100"));
      assertEquals(Arrays.asList("__keyevent@0__:new", "h"), next(subscriber));
      assertEquals(1L, client.call("PEXPIRE", "h", "30"));
      assertEquals(Arrays.asList("__keyevent@0__:expired", "h"), next(subscriber));

      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') -"
                  + " Invalid event class character. Use 'Ag$lshzxeKEtmdn'."),
          client.call("CONFIG", "SET", "notify-keyspace-events", "KEQ"));
    }
  }
}
