import com.sun.jdi.Bootstrap;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.LaunchingConnector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.LocatableEvent;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.MethodExitRequest;
import dev.cuckoo.server.CuckooServer;
import dev.cuckoo.server.ServerConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The walk of one {@code CF.ADD} on an existing filter through the server, traced method by method
 * with the JDK's debugger interface (JDI) and printed file by file.
 *
 * <p>{@code trace <classpath>} launches this class's {@code drive} mode in a JVM under JDI: it starts
 * a server with the log on (appendfsync everysec), warms {@code CF.ADD} up, and sends one more.
 * Around that request every method entry and exit of a {@code dev.cuckoo} class is recorded, and the
 * events of the network thread that ran it are printed as a tree of "stations": files with
 * behaviour, the classes that only carry data or settings (the session, the request, the write
 * scope, the parameters, the reply...) being transparent, as is a call to an accessor (a method
 * that only returns a field of its object: reading data, wherever it is declared), and the core's
 * filter internals shown as the filter. A call that a transparent frame makes into a station counts
 * as a call of the station below it, so nothing a data class does is hidden. It ends with how many
 * calls entered each station, and every call into a file that was already on the call stack (a
 * callback: the walk going back to a file it left other than by returning a value). Tasks of the
 * thread that do not serve the connection (the expiry cycle's timer) are left out.
 */
public class WalkTrace {
  /**
   * Classes that carry data or settings; calls into them are not steps of the walk. WriteScope
   * holds what a write's handler and the write path tell each other (the change, its records, the
   * key opened); Config and Parameter are the parameters' values, which CfConfig and
   * ServerContext read.
   */
  private static final Set<String> DATA =
      Set.of(
          "Session", "ServerContext", "Request", "CommandSpec", "Key", "KeySpec", "Writes", "Reply",
          "CommandClock", "CfConfig", "Traffic", "Authentication", "ClientPause", "Subscriber",
          "Args", "Checks", "ItemHashers", "HeapGuard", "CommandStats", "Transaction",
          "RespDecoder", "StreamPosition", "WriteScope", "Config", "Parameter");

  /** The core's internals of a filter, shown as the filter. */
  private static final Set<String> FILTER =
      Set.of("RedisChain", "RedisLink", "BucketTable", "PlainBucketTable", "Indexer");

  /** {@code trace <classpath>}: traces and prints the walk; {@code drive}: the traced program. */
  public static void main(String[] args) throws Exception {
    if (args[0].equals("drive")) {
      drive();
    } else {
      trace(args[1]);
    }
  }

  /** Starts a server, warms CF.ADD up and runs one traced CF.ADD on an existing key. */
  private static void drive() throws Exception {
    Path dir = Files.createTempDirectory("walk");
    int port;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    // under the debugger every call is slow: a minute's threshold keeps the traced CF.ADD out of
    // the slow log, as a real one is
    ServerConfig config =
        ServerConfig.builder()
            .port(port)
            .threads(1)
            .dir(dir)
            .appendOnly(true)
            .slowlogLogSlowerThan(60_000_000L)
            .build();
    try (CuckooServer server = CuckooServer.start(config);
        Socket socket = new Socket("127.0.0.1", server.port())) {
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      for (int i = 0; i < 2000; i++) {
        call(out, in, "CF.ADD", "k", "warm" + i);
      }
      traceOn();
      String reply = call(out, in, "CF.ADD", "k", "traced");
      traceOff();
      System.err.println("traced CF.ADD answered " + reply);
    }
  }

  /** Where tracing starts (a breakpoint). */
  static void traceOn() {}

  /** Where tracing stops (a breakpoint). */
  static void traceOff() {}

  private static String call(OutputStream out, InputStream in, String... args) throws Exception {
    StringBuilder request = new StringBuilder("*" + args.length + "\r\n");
    for (String arg : args) {
      request.append('$').append(arg.length()).append("\r\n").append(arg).append("\r\n");
    }
    out.write(request.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c != '\n' && c >= 0; c = in.read()) {
      line.append((char) c);
    }
    return line.toString().trim();
  }

  /**
   * One method entry (true) or exit of a thread; {@code accessor}: the method only returns a field.
   */
  private record Step(String thread, boolean entry, String file, String method, boolean accessor) {}

  /**
   * Returns true if the method's code only returns a field: {@code aload_0, getfield, return} or
   * {@code getstatic, return} (the value-returning return opcodes are 0xac to 0xb0).
   */
  private static boolean accessor(Method method) {
    byte[] code = method.bytecodes();
    boolean returns = code.length > 0 && (code[code.length - 1] & 0xff) >= 0xac;
    returns &= code.length > 0 && (code[code.length - 1] & 0xff) <= 0xb0;
    if (code.length == 5) {
      return returns && (code[0] & 0xff) == 0x2a && (code[1] & 0xff) == 0xb4;
    }
    return code.length == 4 && returns && (code[0] & 0xff) == 0xb2;
  }

  private static void trace(String classpath) throws Exception {
    LaunchingConnector connector = Bootstrap.virtualMachineManager().defaultConnector();
    Map<String, Connector.Argument> arguments = connector.defaultArguments();
    arguments.get("main").setValue("WalkTrace drive");
    arguments.get("options").setValue("-cp " + classpath);
    VirtualMachine vm = connector.launch(arguments);
    forward(vm.process().getInputStream());
    forward(vm.process().getErrorStream());
    EventRequestManager requests = vm.eventRequestManager();
    ClassPrepareRequest prepare = requests.createClassPrepareRequest();
    prepare.addClassFilter("WalkTrace");
    prepare.enable();
    MethodEntryRequest entries = requests.createMethodEntryRequest();
    entries.addClassFilter("dev.cuckoo.*");
    entries.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
    MethodExitRequest exits = requests.createMethodExitRequest();
    exits.addClassFilter("dev.cuckoo.*");
    exits.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
    List<Step> steps = new ArrayList<>();
    Map<Long, String> threadNames = new LinkedHashMap<>();
    Map<Method, Boolean> accessors = new java.util.HashMap<>();
    try {
      while (true) {
        EventSet set = vm.eventQueue().remove();
        for (Event event : set) {
          if (event instanceof ClassPrepareEvent prepared) {
            ReferenceType type = prepared.referenceType();
            for (String name : List.of("traceOn", "traceOff")) {
              for (Method method : type.methodsByName(name)) {
                requests.createBreakpointRequest(method.location()).enable();
              }
            }
          } else if (event instanceof BreakpointEvent breakpoint) {
            boolean on = breakpoint.location().method().name().equals("traceOn");
            entries.setEnabled(on);
            exits.setEnabled(on);
          } else if (event instanceof MethodEntryEvent || event instanceof MethodExitEvent) {
            LocatableEvent located = (LocatableEvent) event;
            Method method = located.location().method();
            String thread =
                threadNames.computeIfAbsent(
                    located.thread().uniqueID(), id -> located.thread().name());
            steps.add(
                new Step(
                    thread,
                    event instanceof MethodEntryEvent,
                    file(method.declaringType().name()),
                    method.name(),
                    accessors.computeIfAbsent(method, WalkTrace::accessor)));
          } else if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
            print(steps);
            return;
          }
        }
        set.resume();
      }
    } catch (VMDisconnectedException e) {
      print(steps);
    }
  }

  /** Returns the station a class belongs to: its outer class's simple name, or the filter. */
  private static String file(String className) {
    String outer = className.replaceAll("\\$.*", "");
    String simple = outer.substring(outer.lastIndexOf('.') + 1);
    return FILTER.contains(simple) ? "RedisCuckooFilter" : simple;
  }

  private static void print(List<Step> steps) {
    String thread = null;
    for (Step step : steps) {
      if (step.file().equals("CommandHandler")) {
        thread = step.thread();
        break;
      }
    }
    // per frame: its station, or null for a data class's frame
    List<String> stack = new ArrayList<>();
    Map<String, Integer> entered = new LinkedHashMap<>();
    // per task of the thread (the network layer's entry point), the calls entering each file
    Map<String, Map<String, Integer>> enteredByTask = new LinkedHashMap<>();
    Map<String, Integer> taskEntered = null;
    List<String> callbacks = new ArrayList<>();
    // whether the current task of the thread serves the connection (not a timer such as expiry)
    boolean counting = false;
    for (Step step : steps) {
      if (!step.thread().equals(thread)) {
        continue;
      }
      if (!step.entry()) {
        if (!stack.isEmpty()) {
          stack.remove(stack.size() - 1);
        }
        continue;
      }
      if (stack.isEmpty()) {
        counting = step.file().equals("RespDecoder") || step.file().equals("CommandHandler");
        if (counting) {
          taskEntered = new LinkedHashMap<>();
          String task = step.file() + "." + step.method();
          while (enteredByTask.containsKey(task)) {
            task += "'";
          }
          enteredByTask.put(task, taskEntered);
        }
      }
      if (!counting) {
        stack.add(null);
        continue;
      }
      List<String> below = new ArrayList<>();
      for (String frame : stack) {
        if (frame != null && (below.isEmpty() || !below.get(below.size() - 1).equals(frame))) {
          below.add(frame);
        }
      }
      String caller = below.isEmpty() ? null : below.get(below.size() - 1);
      boolean station = !DATA.contains(step.file()) && !step.accessor();
      if (station && !step.file().equals(caller)) {
        entered.merge(step.file(), 1, Integer::sum);
        taskEntered.merge(step.file(), 1, Integer::sum);
        System.out.println("  ".repeat(below.size()) + step.file() + "." + step.method());
        if (below.contains(step.file())) {
          callbacks.add(String.join(" > ", below) + " > " + step.file() + "." + step.method());
        }
      }
      stack.add(station ? step.file() : null);
    }
    System.out.println();
    System.out.println("calls entering each file: " + entered);
    enteredByTask.forEach(
        (task, counts) -> {
          List<String> more = new ArrayList<>();
          counts.forEach(
              (file, count) -> {
                if (count > 1) {
                  more.add(file + "=" + count);
                }
              });
          System.out.println("  in " + task + ", files entered more than once: " + more);
        });
    System.out.println("calls into a file already on the call stack: " + callbacks.size());
    callbacks.forEach(callback -> System.out.println("  " + callback));
  }

  private static void forward(InputStream in) {
    Thread thread =
        new Thread(
            () -> {
              try {
                in.transferTo(System.err);
              } catch (java.io.IOException e) {
                // the traced JVM is gone
              }
            });
    thread.setDaemon(true);
    thread.start();
  }
}
