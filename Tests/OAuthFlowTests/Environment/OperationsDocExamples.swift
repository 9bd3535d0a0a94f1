import CoreMetrics
import Foundation
import Logging
import OAuthFlow
import Tracing

/// The Swift examples of Docs/operations.md, compiled (`DocExampleTests.swiftExamplesAreCompiledByTests`).
struct OperationsDocExamples {
    /// Docs/operations.md, "Turning them on".
    func turningThemOn(store: any TokenStore) -> OAuth {
        var environment = OAuthEnvironment(logger: Logger(label: "myapp.oauth"))
        environment.metrics = MetricsSystem.factory   // the backend the host bootstrapped (swift-prometheus, say)
        environment.tracer = InstrumentationSystem.tracer   // the tracer it bootstrapped (swift-otel, say)
        let oauth = OAuth(OAuth.Configuration(store: store, environment: environment))
        return oauth
    }
}
