// The Vapor sign-in example; being written.
import Vapor

let app = try await Application.make(.detect())
try await app.asyncShutdown()
