package dev.cuckoo.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cuckoo.server.TestServers;
import dev.cuckoo.server.command.ServerContext;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * The master link's registration as a client across connections: a continued connection keeps its
 * client, a new one gets another, and a connection that ends after its successor registered (an old
 * link stopped late) does not take the successor out.
 */
class MasterClientTest {
  private final ServerContext context =
      new ServerContext(TestServers.memoryOnly().build().parameters(), new Keyspace());
  private final MasterClient client =
      new MasterClient(
          context::nextClientId,
          context.clients(),
          new Session(0, Reply.discarding(), new Authentication(true), false));
  private final InetSocketAddress master = new InetSocketAddress("127.0.0.1", 6379);
  private final InetSocketAddress local = new InetSocketAddress("127.0.0.1", 40000);

  @Test
  void down_connectionEndedAfterSuccessorRegistered_successorStaysListed() {
    long first = client.up(master, local, false, () -> {});
    long second = client.up(master, local, false, () -> {});
    assertNotEquals(first, second, "a new connection after a full transfer is a new client");
    client.down(first);
    assertEquals(ClientRegistry.Role.MASTER, context.clients().role(second));
    assertEquals(second, context.clients().get(second).id());
    client.down(second);
    assertNull(context.clients().get(second));
    assertNull(context.clients().role(second));
  }

  @Test
  void up_continuedConnection_keepsTheClientId() {
    long first = client.up(master, local, false, () -> {});
    client.down(first);
    assertEquals(first, client.up(master, local, true, () -> {}));
    assertEquals(ClientRegistry.Role.MASTER, context.clients().role(first));
  }
}
