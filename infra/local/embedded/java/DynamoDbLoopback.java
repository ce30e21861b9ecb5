import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.CommandLineInput;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.monitoring.Telemetry;
import software.amazon.dynamodb.services.local.monitoring.TelemetryUtil;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local listening on 127.0.0.1 only (issue 27): its own main (ServerRunner) binds every
 * interface and has no option to do otherwise. This does what that main does, with the same
 * arguments, but sets the host of the Jetty server's connector before it starts. Run by
 * infra/local/embedded/dynamodb.ts in Java's source-file mode (JDK 11+), so nothing is compiled ahead.
 *
 * It also exits when its stdin ends (issue 29): stdin is a pipe from the Node process that started it,
 * which ends once that process is gone, however it ended (a SIGKILL too), so no DynamoDB Local is
 * left behind holding the DATA_DIR's database.
 */
public class DynamoDbLoopback {
  public static void main(String[] args) throws Exception {
    Thread parentWatch = new Thread(() -> {
      try {
        while (System.in.read() != -1) {}
      } catch (IOException ignored) {
        // a broken pipe means the same: the parent is gone
      }
      System.exit(0);
    }, "parent-watch");
    parentWatch.setDaemon(true);
    parentWatch.start();
    CommandLineInput input = new CommandLineInput(args);
    if (!input.init()) return;
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind to loopback");
    for (Connector connector : connectors) ((ServerConnector) connector).setHost("127.0.0.1");
    Telemetry.configureTelemetry(
        TelemetryUtil.getSetupType(new File("/.dockerenv"), new File("pom.xml")),
        ServerRunner.getSetupMode(input),
        TelemetryUtil.isTelemetryEnabled(input.isDisableTelemetry()));
    proxy.start();
  }
}
