// Placeholder compiled when a target has no sources yet (see CMakeLists.txt).
