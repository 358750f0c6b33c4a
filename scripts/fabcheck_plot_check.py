"""What a drawn report figure gets wrong, measured on the figure itself (in display pixels, as
saved): points outside their plotting area, points under the legend, the smallest text.

fabcheck_report.figure_html writes these on each <figure> (data-cut, data-covered, data-legend,
data-min-text-pt) so the report tests can assert them on the page a person reads.
"""
import math

from matplotlib.collections import PathCollection

INSIDE_PX = 3  # a point's centre this close to the axes' edge is drawn half outside it


def marker_points(ax):
    """Display (x, y) of every drawn point of `ax`: scatter points and the markers of lines (lines
    without markers, bands and reference lines have no points)."""
    points = []
    for collection in ax.collections:
        if type(collection) is PathCollection and collection.get_visible():
            transform = collection.get_offset_transform()
            points += [tuple(p) for p in transform.transform(collection.get_offsets())]
    for line in ax.lines:
        if not line.get_visible() or line.get_marker() in (None, "", " ", "None", "none"):
            continue
        xy = line.get_xydata()
        if len(xy):
            points += [tuple(p) for p in line.get_transform().transform(xy)]
    return [p for p in points if math.isfinite(p[0]) and math.isfinite(p[1])]


def check_figure(fig):
    """{cut: points whose centre is outside (or on the edge of) their axes, covered: points under
    a legend, legend: the legends' labels, min_text_pt: the smallest text drawn inside the axes
    (cell values, annotations, labels on bands), None when there is none}."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    cut = covered = 0
    labels, sizes = [], []
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    legend_boxes = [legend.get_window_extent(renderer) for legend in legends]
    for legend in legends:
        labels += [text.get_text() for text in legend.get_texts()]
    for ax in fig.axes:
        box = ax.get_window_extent(renderer)
        for x, y in marker_points(ax):
            if not (box.x0 + INSIDE_PX <= x <= box.x1 - INSIDE_PX and box.y0 + INSIDE_PX <= y <= box.y1 - INSIDE_PX):
                cut += 1
            if any(b.x0 <= x <= b.x1 and b.y0 <= y <= b.y1 for b in legend_boxes):
                covered += 1
        sizes += [text.get_fontsize() for text in ax.texts if text.get_visible() and text.get_text().strip()]
    return {"cut": cut, "covered": covered, "legend": labels, "min_text_pt": min(sizes) if sizes else None}
