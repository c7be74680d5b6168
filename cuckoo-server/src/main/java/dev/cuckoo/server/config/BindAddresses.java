package dev.cuckoo.server.config;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The value of {@code bind}, Redis's syntax: addresses separated by spaces, at most {@value
 * #MAX_ADDRESSES}; {@code *} is every IPv4 address, {@code ::*} every IPv6 address; an address
 * written with a leading {@code -} is skipped when this host does not have it.
 */
public final class BindAddresses {
  /** The most addresses {@code bind} may name (Redis's CONFIG_BINDADDR_MAX). */
  public static final int MAX_ADDRESSES = 16;

  private BindAddresses() {}

  /**
   * Returns the error in {@code bind}, or null if it is a valid address list: 1 to {@value
   * #MAX_ADDRESSES} addresses separated by spaces, each a host this machine can resolve.
   */
  public static String check(String bind) {
    List<String> addresses = split(bind);
    if (addresses.isEmpty()) {
      return "bind: no address given; give 1 to " + MAX_ADDRESSES + " addresses";
    }
    if (addresses.size() > MAX_ADDRESSES) {
      return "bind: "
          + addresses.size()
          + " addresses given; give 1 to "
          + MAX_ADDRESSES
          + " addresses";
    }
    for (String address : addresses) {
      if (new InetSocketAddress(host(address), 0).isUnresolved()) {
        return "bind: unknown host '" + address + "'";
      }
    }
    return null;
  }

  /** Returns true if every address of a valid {@code bind} is a loopback address. */
  public static boolean loopbackOnly(String bind) {
    for (String address : split(bind)) {
      InetSocketAddress resolved = new InetSocketAddress(host(address), 0);
      if (resolved.isUnresolved() || !resolved.getAddress().isLoopbackAddress()) {
        return false;
      }
    }
    return true;
  }

  /** Returns the number of addresses {@code bind} names. */
  public static int count(String bind) {
    return split(bind).size();
  }

  /** Returns the addresses {@code bind} names, in order. */
  public static List<String> split(String bind) {
    List<String> addresses = new ArrayList<>();
    for (String address : bind.trim().split("\\s+")) {
      if (!address.isEmpty()) {
        addresses.add(address);
      }
    }
    return addresses;
  }

  /** Returns true if an address is written with a leading {@code -}: skipped if absent. */
  public static boolean optional(String address) {
    return address.startsWith("-");
  }

  /** Returns the host to bind for one address of {@code bind} ({@code -} and wildcards undone). */
  public static String host(String address) {
    String host = optional(address) ? address.substring(1) : address;
    return switch (host) {
      case "*" -> "0.0.0.0";
      case "::*" -> "::";
      default -> host;
    };
  }
}
