//! The thread store suite (ag-ui-testkit) against `MemoryThreads`.

use ag_ui_server::threads::MemoryThreads;

ag_ui_testkit::thread_store_suite!(MemoryThreads::new());
