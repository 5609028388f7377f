//! The thread store suite and the threads API suite (ag-ui-testkit) against
//! `MemoryThreads`.

use ag_ui_server::threads::MemoryThreads;

ag_ui_testkit::thread_store_suite!(MemoryThreads::new());

/// The threads API suite (ag-ui-testkit): the JSON thread routes over loopback HTTP, on
/// `MemoryThreads`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_threads_api_suite() {
    ag_ui_testkit::threads_api::suite(std::sync::Arc::new(MemoryThreads::new())).await;
}
