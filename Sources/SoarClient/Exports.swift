/// One import for an app: `import SoarClient` also gives SoarCore's shared types (`JSONValue`,
/// `Payload`, `RouteTable`, `AppRoute`, `PushRoute`, `PushToken`).
@_exported import SoarCore
