// OAuthFlowMCPVapor is built only with the package traits MCP and Vapor (Package.swift): without, it says so in one sentence.
#if !(MCP && Vapor)
#error("OAuthFlowMCPVapor needs the package traits MCP and Vapor: .package(…, traits: [\"MCP\", \"Vapor\"]), or tick them in Xcode")
#endif
