package dev.cuckoo.server;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Hands SIGTERM and SIGINT to the server instead of the JVM's default for them (run the shutdown
 * hooks, then exit with status 128 + the signal number), so that a server stopped by a signal stops
 * as SHUTDOWN stops it and exits with status 0, which service managers read as a clean stop.
 */
final class ShutdownSignals {
  /*
   * The handlers are registered through sun.misc.Signal, which JEP 260 keeps available in the
   * module jdk.unsupported for exactly this use. It is reached reflectively because javac warns
   * about it as internal proprietary API (a warning no annotation suppresses, and the build treats
   * warnings as errors). Where it is missing (a runtime image without jdk.unsupported) or the JVM
   * keeps a signal for itself (-Xrs), that signal keeps the JVM's default, and the shutdown hook
   * that CuckooServer.main also registers stops the server (the exit status is then 143 or 130).
   */

  /** The signals {@link #install} takes over, by their names without "SIG". */
  static final List<String> SIGNALS = List.of("TERM", "INT");

  private ShutdownSignals() {}

  /**
   * Makes each SIGTERM and SIGINT call {@code onSignal} with the signal's name ({@code "SIGTERM"}),
   * in a new thread each time.
   *
   * @return the signals now handled ({@code "SIGTERM"}, {@code "SIGINT"}); empty if this JVM offers
   *     no signal handlers
   */
  static List<String> install(Consumer<String> onSignal) {
    List<String> handled = new ArrayList<>();
    Class<?> signalType;
    Class<?> handlerType;
    try {
      signalType = Class.forName("sun.misc.Signal");
      handlerType = Class.forName("sun.misc.SignalHandler");
    } catch (ClassNotFoundException e) {
      return handled;
    }
    InvocationHandler calls =
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "handle":
              onSignal.accept(args[0].toString());
              return null;
            case "equals":
              return proxy == args[0];
            case "hashCode":
              return System.identityHashCode(proxy);
            default:
              return "cuckoo-server shutdown signal handler";
          }
        };
    Object handler =
        Proxy.newProxyInstance(
            ShutdownSignals.class.getClassLoader(), new Class<?>[] {handlerType}, calls);
    try {
      Constructor<?> signal = signalType.getConstructor(String.class);
      Method handle = signalType.getMethod("handle", signalType, handlerType);
      for (String name : SIGNALS) {
        try {
          handle.invoke(null, signal.newInstance(name), handler);
          handled.add("SIG" + name);
        } catch (InvocationTargetException e) {
          // IllegalArgumentException: the JVM keeps this signal (-Xrs) or the OS does not know it
        }
      }
    } catch (ReflectiveOperationException e) {
      // an unexpected shape of sun.misc.Signal: the signals keep the JVM's default
    }
    return handled;
  }
}
