import com.sun.management.ThreadMXBean;
import com.sun.tools.attach.VirtualMachine;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Heap bytes a Redis-protocol server on the JVM allocates per request, by command, measured
 * exactly: the sum over the server's threads of what each has allocated (the JVM's per-thread
 * allocation counter, {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}, read
 * through the server's local management agent), before and after a phase of identical requests.
 *
 * <p>Phases, each sent pipelined on one connection and waited for to the last reply: a warm-up of
 * {@code KEYS} keys ({@code CF.RESERVE warm:I 100} and five {@code CF.ADD}s each, so the JIT has
 * compiled the path), then {@code CF.RESERVE user:I 100} for {@code KEYS} new keys, then five
 * {@code CF.ADD user:I item:I:J} per key, then the same five as {@code CF.EXISTS} (a read). Every phase is measured twice over the same kind of
 * requests on fresh keys (the second time is printed; the first absorbs the last compilations).
 * An idle phase of the same length without requests is measured too and printed, so that what
 * the server allocates by itself (timers, the management agent's answers) can be told apart.
 *
 * <p>Run as a single-file program (no build): {@code java AllocationPerRequest.java PID PORT
 * [KEYS]}; prints one line per phase: {@code phase requests network-thread-bytes bytes/request
 * all-thread-bytes bytes/request}.
 */
public final class AllocationPerRequest {
  private AllocationPerRequest() {}

  /** Measures the server process {@code PID} listening on 127.0.0.1:{@code PORT}. */
  public static void main(String[] args) throws Exception {
    String pid = args[0];
    int port = Integer.parseInt(args[1]);
    int keys = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
    VirtualMachine vm = VirtualMachine.attach(pid);
    String url;
    try {
      url = vm.startLocalManagementAgent();
    } finally {
      vm.detach();
    }
    try (JMXConnector jmx = JMXConnectorFactory.connect(new JMXServiceURL(url));
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      MBeanServerConnection server = jmx.getMBeanServerConnection();
      ThreadMXBean threads =
          ManagementFactory.newPlatformMXBeanProxy(
              server, ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
      socket.setTcpNoDelay(true);
      Connection connection = new Connection(socket);
      connection.run(load("warm", keys), keys * 6L);
      for (int round = 0; round < 2; round++) {
        String prefix = "user" + round;
        long[] reserves = measure(threads, connection, reserves(prefix, keys), keys);
        long[] adds = measure(threads, connection, items("CF.ADD", prefix, keys), keys * 5L);
        long[] exists = measure(threads, connection, items("CF.EXISTS", prefix, keys), keys * 5L);
        long[] idle = measure(threads, null, null, 0);
        if (round == 1) {
          print("CF.RESERVE", keys, reserves);
          print("CF.ADD", keys * 5L, adds);
          print("CF.EXISTS", keys * 5L, exists);
          print("idle", 0, idle);
        }
      }
    }
  }

  /**
   * Returns the bytes the server allocated while {@code requests} ran (or while idle): {@code [0]}
   * on its network threads (Netty's event loops, which decode, run and answer requests), {@code
   * [1]} on all of its threads (background work too, e.g. a snapshot the log's growth started).
   */
  private static long[] measure(
      ThreadMXBean threads, Connection connection, byte[] requests, long replies)
      throws IOException, InterruptedException {
    long[] before = allocated(threads);
    if (connection != null) {
      connection.run(requests, replies);
    } else {
      Thread.sleep(200);
    }
    long[] after = allocated(threads);
    return new long[] {after[0] - before[0], after[1] - before[1]};
  }

  private static long[] allocated(ThreadMXBean threads) {
    long[] ids = threads.getAllThreadIds();
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    ThreadInfo[] infos = threads.getThreadInfo(ids);
    long network = 0;
    long total = 0;
    for (int i = 0; i < ids.length; i++) {
      long b = Math.max(0, bytes[i]);
      total += b;
      // the threads that run commands are named cuckoo-io-N; older builds left Netty's names
      String name = infos[i] == null ? "" : infos[i].getThreadName();
      if (name.startsWith("cuckoo-io-") || name.contains("EventLoopGroup")) {
        network += b;
      }
    }
    return new long[] {network, total};
  }

  private static void print(String phase, long requests, long[] bytes) {
    System.out.printf(
        "%s %d %d %s %d %s%n",
        phase,
        requests,
        bytes[0],
        requests == 0 ? "-" : String.format("%.1f", bytes[0] / (double) requests),
        bytes[1],
        requests == 0 ? "-" : String.format("%.1f", bytes[1] / (double) requests));
  }

  private static byte[] load(String prefix, int keys) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < keys; i++) {
      command(out, "CF.RESERVE", prefix + ":" + i, "100");
      for (int j = 0; j < 5; j++) {
        command(out, "CF.ADD", prefix + ":" + i, "item:" + i + ":" + j);
      }
    }
    return out.toByteArray();
  }

  private static byte[] reserves(String prefix, int keys) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < keys; i++) {
      command(out, "CF.RESERVE", prefix + ":" + i, "100");
    }
    return out.toByteArray();
  }

  /** Returns {@code command key item} for five items of each key (CF.ADD, CF.EXISTS). */
  private static byte[] items(String command, String prefix, int keys) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < keys; i++) {
      for (int j = 0; j < 5; j++) {
        command(out, command, prefix + ":" + i, "item:" + i + ":" + j);
      }
    }
    return out.toByteArray();
  }

  private static void command(ByteArrayOutputStream out, String... args) {
    StringBuilder text = new StringBuilder("*").append(args.length).append("\r\n");
    for (String arg : args) {
      text.append('$').append(arg.length()).append("\r\n").append(arg).append("\r\n");
    }
    out.writeBytes(text.toString().getBytes(StandardCharsets.US_ASCII));
  }

  /** One connection: writes a phase's requests on a thread of its own while reading replies. */
  private static final class Connection {
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buffer = new byte[1 << 16];

    Connection(Socket socket) throws IOException {
      in = socket.getInputStream();
      out = socket.getOutputStream();
    }

    /** Sends the requests and reads until {@code replies} one-line replies have arrived. */
    void run(byte[] requests, long replies) throws IOException, InterruptedException {
      IOException[] failed = new IOException[1];
      Thread writer =
          new Thread(
              () -> {
                try {
                  out.write(requests);
                  out.flush();
                } catch (IOException e) {
                  failed[0] = e;
                }
              });
      writer.start();
      long lines = 0;
      while (lines < replies) {
        int n = in.read(buffer);
        if (n < 0) {
          throw new IOException("the server closed the connection");
        }
        for (int i = 0; i < n; i++) {
          if (buffer[i] == '-') {
            throw new IOException("error reply after " + lines + " replies");
          }
          if (buffer[i] == '\n') {
            lines++;
          }
        }
      }
      writer.join();
      if (failed[0] != null) {
        throw failed[0];
      }
    }
  }
}
