export class Counter {
  private n = 0;

  inc(): number {
    return ++this.n;
  }

  reset(): void {
    this.n = 0;
    console.log("reset");
  }
}
