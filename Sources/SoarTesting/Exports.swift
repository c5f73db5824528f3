/// The app-side fakes and clocks, for Soar's own tests that also need the server.
@_exported import SoarClientTesting
