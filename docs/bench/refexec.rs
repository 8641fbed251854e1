// Build and run (std only, no crates): rustc --edition 2021 -O -C target-cpu=native docs/bench/refexec.rs -o /tmp/refexec && /tmp/refexec
// A std-only executor shaped like commonware's deterministic runtime: a ready
// queue of ids behind a Mutex, a BTreeMap of running tasks behind a Mutex,
// shuffle per iteration, per poll: registry lookup, audit hash of (id, name),
// poll counter lookup, a freshly allocated Arc waker, the future's Mutex.
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Instant;

struct Tasks {
    ready: Mutex<Vec<u128>>,
    running: Mutex<BTreeMap<u128, Arc<Task>>>,
}
struct Task {
    id: u128,
    name: String,
    fut: Mutex<Option<Pin<Box<dyn Future<Output = ()> + Send>>>>,
}
struct TaskWaker {
    id: u128,
    tasks: Weak<Tasks>,
}
impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) { self.wake_by_ref() }
    fn wake_by_ref(self: &Arc<Self>) {
        if let Some(t) = self.tasks.upgrade() {
            t.ready.lock().unwrap().push(self.id);
        }
    }
}

struct Yield(bool);
impl Future for Yield {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 { return Poll::Ready(()); }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

fn crc32c_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    for i in 0..256u32 {
        let mut c = i;
        for _ in 0..8 { c = if c & 1 != 0 { 0x82F63B78 ^ (c >> 1) } else { c >> 1 }; }
        t[i as usize] = c;
    }
    t
}
fn crc(t: &[u32; 256], mut c: u32, b: &[u8]) -> u32 {
    c = !c;
    for &x in b { c = t[((c ^ x as u32) & 0xff) as usize] ^ (c >> 8); }
    !c
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 { self.0 ^= self.0 << 13; self.0 ^= self.0 >> 7; self.0 ^= self.0 << 17; self.0 }
}

fn run(n: usize, per: usize) -> (f64, u64) {
    let tasks = Arc::new(Tasks { ready: Mutex::new(Vec::new()), running: Mutex::new(BTreeMap::new()) });
    for i in 0..n {
        let fut: Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(async move {
            for _ in 0..per { Yield(false).await; }
        });
        let id = i as u128;
        tasks.running.lock().unwrap().insert(id, Arc::new(Task { id, name: "worker".to_string(), fut: Mutex::new(Some(fut)) }));
        tasks.ready.lock().unwrap().push(id);
    }
    let table = crc32c_table();
    let mut digest = 0u32;
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let polls: Mutex<HashMap<String, u64>> = Mutex::new(HashMap::new());
    let mut count = 0u64;
    let start = Instant::now();
    loop {
        let mut queue = std::mem::take(&mut *tasks.ready.lock().unwrap());
        if queue.is_empty() { break; }
        for i in (1..queue.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            queue.swap(i, j);
        }
        for id in queue {
            let task = match tasks.running.lock().unwrap().get(&id) { Some(t) => t.clone(), None => continue };
            let mut h = crc(&table, 0, &digest.to_be_bytes());
            h = crc(&table, h, &task.id.to_be_bytes());
            digest = crc(&table, h, task.name.as_bytes());
            {
                let mut p = polls.lock().unwrap();
                if let Some(v) = p.get_mut(&task.name) { *v += 1; } else { p.insert(task.name.clone(), 1); }
            }
            let waker = Waker::from(Arc::new(TaskWaker { id, tasks: Arc::downgrade(&tasks) }));
            let mut cx = Context::from_waker(&waker);
            let mut f = task.fut.lock().unwrap();
            count += 1;
            if f.as_mut().unwrap().as_mut().poll(&mut cx).is_ready() {
                tasks.running.lock().unwrap().remove(&id);
                *f = None;
            }
        }
    }
    (start.elapsed().as_nanos() as f64 / count as f64, count + digest as u64 * 0)
}

fn main() {
    for &n in &[2usize, 100, 10_000] {
        let per = if n == 10_000 { 100 } else { 1_000_000 / n };
        for _ in 0..3 {
            let (ns, c) = run(n, per);
            println!("tasks={} polls={} ns/poll={:.1}", n, c, ns);
        }
    }
}
