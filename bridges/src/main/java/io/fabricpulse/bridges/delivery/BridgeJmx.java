package io.fabricpulse.bridges.delivery;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;

/**
 * Registers every robot's {@link BridgeMetrics} with the platform MBean server (JConsole, a JMX
 * exporter) as {@code io.fabricpulse:type=bridge,bridge=<type>,robot=<name>}; {@link #close()}
 * unregisters them.
 */
public final class BridgeJmx implements AutoCloseable {
  private final MBeanServer server;
  private final List<ObjectName> registered = new ArrayList<>();

  private BridgeJmx(MBeanServer server) {
    this.server = server;
  }

  /** The MBean name of one robot of a bridge type. */
  public static ObjectName name(String bridge, String robot) {
    try {
      return new ObjectName(
          "io.fabricpulse:type=bridge,bridge="
              + ObjectName.quote(bridge)
              + ",robot="
              + ObjectName.quote(robot));
    } catch (MalformedObjectNameException e) {
      throw new IllegalArgumentException("robot name " + robot + ": " + e.getMessage(), e);
    }
  }

  /**
   * Registers the robots of {@code dispatchers}; a name already registered (a second bridge of the
   * same type in this JVM, e.g. in tests) is replaced.
   */
  public static BridgeJmx register(String bridge, List<RobotDispatcher> dispatchers) {
    BridgeJmx jmx = new BridgeJmx(ManagementFactory.getPlatformMBeanServer());
    for (RobotDispatcher d : dispatchers) {
      ObjectName name = name(bridge, d.name());
      try {
        if (jmx.server.isRegistered(name)) {
          jmx.server.unregisterMBean(name);
        }
        jmx.server.registerMBean(d.metrics(), name);
        jmx.registered.add(name);
      } catch (InstanceAlreadyExistsException
          | MBeanRegistrationException
          | NotCompliantMBeanException
          | InstanceNotFoundException e) {
        throw new IllegalStateException("cannot register " + name + ": " + e.getMessage(), e);
      }
    }
    return jmx;
  }

  @Override
  public void close() {
    for (ObjectName name : registered) {
      try {
        server.unregisterMBean(name);
      } catch (InstanceNotFoundException | MBeanRegistrationException e) {
        // already gone (replaced by a later bridge of the same name)
      }
    }
    registered.clear();
  }
}
